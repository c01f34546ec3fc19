# Raw syscall through ctypes: init_module, to load a kernel module.
# The seccomp profile kills the job before the call runs; the response
# names the syscall.
# expect: violation
# violation: init_module
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


print("CALLING init_module", flush=True)
r = libc.syscall(*L(175, None, 0, b''))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
