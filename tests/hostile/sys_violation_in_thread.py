# A forbidden syscall in a secondary thread: the whole process is killed and
# the response names the syscall.
# expect: violation
# violation: keyctl
# stdout: not-contains AFTER
# host: no-leftover
import ctypes
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)
t = threading.Thread(target=lambda: libc.syscall(ctypes.c_long(250), ctypes.c_long(0),
                                                 ctypes.c_long(-3), ctypes.c_long(0)))
t.start()
t.join()
time.sleep(0.5)
print("AFTER", flush=True)
