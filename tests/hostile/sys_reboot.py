# Raw syscall through ctypes: reboot, to reboot the machine.
# The seccomp profile kills the job before the call runs; the response
# names the syscall.
# expect: violation
# violation: reboot
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


print("CALLING reboot", flush=True)
r = libc.syscall(*L(169, 0xfee1dead, 672274793, 0x4321fedc, None))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
