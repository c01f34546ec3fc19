# Raw syscall through ctypes: open_by_handle_at, to open a file by handle (the
# 'shocker' container escape). The seccomp profile kills the job before the
# call runs; the response names the syscall.
# expect: violation
# violation: open_by_handle_at
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


print("CALLING open_by_handle_at", flush=True)
r = libc.syscall(*L(304, -100, ctypes.create_string_buffer(128), 0))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
