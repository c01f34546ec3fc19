# Ignore every catchable signal (SIGTERM, SIGXCPU, SIGINT, SIGHUP, ...),
# then spin: the CPU limit must still end the job.
# expect: timeout
# limit_hit: cpu
# limits: {"cpu_ms": 1000, "wall_ms": 6000}
# host: no-leftover
import signal
import sys

for s in signal.Signals:
    if s in (signal.SIGKILL, signal.SIGSTOP):
        continue
    try:
        signal.signal(s, signal.SIG_IGN)
    except (OSError, ValueError):
        pass
print("ignoring", flush=True)
sys.stdout.flush()
while True:
    pass
