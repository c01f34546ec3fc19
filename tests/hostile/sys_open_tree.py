# Raw syscall through ctypes: open_tree, to clone a mount tree
# (OPEN_TREE_CLONE). The seccomp profile kills the job before the call runs;
# the response names the syscall.
# expect: violation
# violation: open_tree
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


print("CALLING open_tree", flush=True)
r = libc.syscall(*L(428, -100, b'/', 1))
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
