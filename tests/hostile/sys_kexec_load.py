# Raw syscall through ctypes: kexec_load, to load a new kernel.
# The seccomp profile kills the job before the call runs; the response
# names the syscall.
# expect: violation
# violation: kexec_load
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


print("CALLING kexec_load", flush=True)
r = libc.syscall(*L(246, 0, 0, None, 0))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
