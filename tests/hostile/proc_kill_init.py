# Kill the job's pid 1, its parent, kill(-1) and the daemon's host pid (as a
# number in the job's own PID namespace): only the job's own processes can
# be signalled; the daemon survives and keeps serving.
# expect: pass
# stdout: contains STILL-HERE
# host: daemon-alive
# host: no-leftover
import os
import signal
import sys

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
print("pid", os.getpid(), "ppid", os.getppid(), flush=True)
for pid in (1, os.getppid(), @DAEMONPID@):
    if pid == os.getpid():
        continue
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
            print("kill", pid, sig, "returned", flush=True)
        except OSError as e:
            print("kill", pid, sig, e.strerror, flush=True)
try:
    os.kill(-1, signal.SIGKILL)
    print("kill(-1) returned", flush=True)
except OSError as e:
    print("kill(-1)", e.strerror, flush=True)
print("STILL-HERE", flush=True)
