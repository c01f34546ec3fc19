# violation: ptrace is forbidden; the syscall never runs and the response names it
import ctypes
libc = ctypes.CDLL(None)
libc.syscall(101, 0, 0, 0, 0)  # SYS_ptrace on x86_64
print("not reached")
