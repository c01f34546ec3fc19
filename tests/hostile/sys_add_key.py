# Raw syscall through ctypes: add_key, to add a key to the session keyring.
# The seccomp profile kills the job before the call runs; the response
# names the syscall.
# expect: violation
# violation: add_key
# stdout: contains CALLING
# stdout: not-contains RETURNED
# host: no-leftover
import ctypes
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def L(*args):
    return [ctypes.c_long(a) if isinstance(a, int) else a for a in args]


print("CALLING add_key", flush=True)
r = libc.syscall(*L(248, b'user', b'sbx', b'x', 1, -3))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
