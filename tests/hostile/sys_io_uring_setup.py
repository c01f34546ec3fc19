# Raw syscall through ctypes: io_uring_setup, to set up an io_uring (bypasses
# seccomp for the ops it queues). The seccomp profile kills the job before the
# call runs; the response names the syscall.
# expect: violation
# violation: io_uring_setup
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


print("CALLING io_uring_setup", flush=True)
r = libc.syscall(*L(425, 8, ctypes.create_string_buffer(120)))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
