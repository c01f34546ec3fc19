# SysV message queues and POSIX message queues are forbidden (EPERM, not a
# kill): each queue holds up to msgmnb bytes of kernel memory and CPython
# needs neither.
# expect: pass
# stdout: contains msgget: EPERM
# stdout: contains mq_open: EPERM
# host: ipc-clean
import ctypes
import errno

libc = ctypes.CDLL(None, use_errno=True)
r = libc.msgget(0x5BD3, 0o1600)
print("msgget:", "EPERM" if r < 0 and ctypes.get_errno() == errno.EPERM else r)
# mq_open is a syscall of its own (240 on x86_64).
r = libc.syscall(240, b"sbx-q", 0o100 | 0o2, 0o600, None)
print("mq_open:", "EPERM" if r < 0 and ctypes.get_errno() == errno.EPERM else r)
