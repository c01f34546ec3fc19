# Ignore every catchable signal (SIGTERM, SIGXCPU, SIGINT, SIGHUP, ...),
# then spin: the CPU limit must still end the job.
# The 1 s CPU limit is the daemon's, read from the job's cgroup; without a
# CPU cgroup only RLIMIT_CPU's backstop is left (SIGXCPU, here blocked or
# ignored, then SIGKILL a second later, per process), which a loaded
# machine may not reach before the wall limit.
# requires: cgroup-cpu
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
