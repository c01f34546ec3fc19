# inotify and fanotify on the shared read-only /usr and /etc/ssl would let a
# job watch other jobs' and the host's file activity. The default profile
# refuses them with EPERM (not a kill): the job goes on and passes.
# expect: pass
# violation: none
# stdout: contains INOTIFY-REFUSED
# stdout: contains FANOTIFY-REFUSED
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
err = ctypes.get_errno()
print("inotify_init1:", fd, os.strerror(err) if fd < 0 else "")
assert fd == -1 and err == 1, "inotify_init1 was allowed"
SYS_inotify_init, SYS_inotify_add_watch, SYS_fanotify_init = 253, 254, 300
fd = libc.syscall(SYS_inotify_init)
assert fd == -1 and ctypes.get_errno() == 1, "inotify_init was allowed"
w = libc.syscall(SYS_inotify_add_watch, 0, b"/usr", 0xfff)
assert w == -1 and ctypes.get_errno() == 1, "inotify_add_watch was allowed"
print("INOTIFY-REFUSED")
fd = libc.syscall(SYS_fanotify_init, 0, 0)
err = ctypes.get_errno()
print("fanotify_init:", fd, os.strerror(err))
assert fd == -1 and err == 1, "fanotify_init did not fail with EPERM"
print("FANOTIFY-REFUSED")
