# New namespaces through clone() flags instead of unshare(): CLONE_NEWUSER,
# CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID each refused (EPERM from the
# profile's clone argument filter), and clone3 (whose flags seccomp cannot
# inspect) refused with ENOSYS. The job keeps running.
# expect: pass
# stdout: contains CLONE-REFUSED
# stdout: not-contains CLONE-ALLOWED
# host: no-leftover
import ctypes
import errno
import os
import signal

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
refused = 0
flags = {"CLONE_NEWUSER": 0x10000000, "CLONE_NEWNS": 0x00020000, "CLONE_NEWNET": 0x40000000,
         "CLONE_NEWPID": 0x20000000, "CLONE_NEWCGROUP": 0x02000000}
for name, flag in flags.items():
    r = libc.syscall(ctypes.c_long(56), ctypes.c_long(flag | signal.SIGCHLD), ctypes.c_long(0),
                     ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0))
    if r == 0:
        os._exit(0)
    if r > 0:
        os.waitpid(r, 0)
        print("CLONE-ALLOWED", name)
    else:
        refused += 1
        print(name, "refused:", errno.errorcode.get(ctypes.get_errno()))
args = (ctypes.c_uint64 * 11)(0x10000000, 0, 0, 0, signal.SIGCHLD, 0, 0, 0, 0, 0, 0)
r = libc.syscall(ctypes.c_long(435), args, ctypes.c_long(88))
if r == 0:
    os._exit(0)
if r > 0:
    os.waitpid(r, 0)
    print("CLONE-ALLOWED clone3")
else:
    refused += 1
    print("clone3 refused:", errno.errorcode.get(ctypes.get_errno()))
print("CLONE-REFUSED" if refused == len(flags) + 1 else "CLONE-PARTIAL")
