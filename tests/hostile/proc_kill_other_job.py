# Runs next to a victim job (`sleep 3; print("survived")`, started by the
# driver at the same time): signal every pid visible in /proc, every pid
# number up to 65536, every process group, and kill(-1). The victim must
# still pass, printing "survived".
# expect: pass
# stdout: contains SWEPT
# host: victim-survived
# host: daemon-alive
import os
import signal
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
time.sleep(0.7)  # the victim is running by now
me = os.getpid()
for name in os.listdir("/proc"):
    if name.isdigit() and int(name) != me:
        try:
            os.kill(int(name), signal.SIGKILL)
        except OSError:
            pass
hits = 0
for pid in range(2, 65536):
    if pid in (me, os.getpgrp()):
        continue
    try:
        os.kill(pid, signal.SIGKILL)
        hits += 1
    except OSError:
        pass
    try:
        os.kill(-pid, signal.SIGKILL)
    except OSError:
        pass
print("signalled", hits, "pids", flush=True)
print("SWEPT", flush=True)
try:
    os.kill(-1, signal.SIGKILL)
except OSError as e:
    print("kill(-1):", e.strerror)
