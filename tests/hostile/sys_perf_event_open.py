# Raw syscall through ctypes: perf_event_open, to open a perf event.
# The seccomp profile kills the job before the call runs; the response
# names the syscall.
# expect: violation
# violation: perf_event_open
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


print("CALLING perf_event_open", flush=True)
r = libc.syscall(*L(298, None, 0, -1, -1, 0))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
