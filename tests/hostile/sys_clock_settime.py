# Raw syscall through ctypes: clock_settime, to set the system clock.
# The seccomp profile kills the job before the call runs; the response
# names the syscall.
# expect: violation
# violation: clock_settime
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


print("CALLING clock_settime", flush=True)
r = libc.syscall(*L(227, 0, ctypes.create_string_buffer(16)))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
