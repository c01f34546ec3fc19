# Raw syscall through ctypes: sethostname, to set the host name.
# The seccomp profile kills the job before the call runs; the response
# names the syscall.
# expect: violation
# violation: sethostname
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


print("CALLING sethostname", flush=True)
r = libc.syscall(*L(170, b'pwned', 5))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
