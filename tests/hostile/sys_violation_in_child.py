# A forbidden syscall in a child process while the parent exits 0: the
# violation still decides the verdict (the parent's clean exit must not hide
# it).
# expect: violation
# violation: ptrace
# host: no-leftover
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
pid = os.fork()
if pid == 0:
    libc.syscall(ctypes.c_long(101), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0),
                 ctypes.c_long(0))  # PTRACE_TRACEME
    os._exit(0)
_, status = os.waitpid(pid, 0)
print("child status", status, flush=True)
