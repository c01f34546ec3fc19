# Raw syscall through ctypes: mount, to mount a tmpfs over /tmp.
# The seccomp profile kills the job before the call runs; the response
# names the syscall.
# expect: violation
# violation: mount
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


print("CALLING mount", flush=True)
r = libc.syscall(*L(165, b'none', b'/tmp', b'tmpfs', 0, None))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
