# Many forbidden syscalls at once: 6 processes with 4 threads each call
# ptrace, bpf, keyctl and unshare at the same moment. The first one ends the
# job; the response names one of them; nothing is left behind and the daemon
# keeps serving.
# expect: violation
# violation: any
# limits: {"pids": 64}
# host: no-leftover
# host: daemon-alive
import ctypes
import os
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)
calls = [(101, 16, 1), (321, 5, 0), (250, 0, -3), (272, 0x10000000, 0)]
go = time.time() + 0.5
for _ in range(5):
    if os.fork() == 0:
        break


def call(nr, a, b):
    while time.time() < go:
        pass
    libc.syscall(ctypes.c_long(nr), ctypes.c_long(a), ctypes.c_long(b), ctypes.c_long(0))


threads = [threading.Thread(target=call, args=c) for c in calls]
for t in threads:
    t.start()
for t in threads:
    t.join()
time.sleep(5)
