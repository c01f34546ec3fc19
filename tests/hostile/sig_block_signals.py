# Block every signal with sigprocmask in a child that outlives a fast parent
# exit, and in the main process while spinning.
# The 1 s CPU limit is the daemon's, read from the job's cgroup; without a
# CPU cgroup only RLIMIT_CPU's backstop is left (SIGXCPU, here blocked or
# ignored, then SIGKILL a second later, per process), which a loaded
# machine may not reach before the wall limit.
# requires: cgroup-cpu
# expect: timeout
# limit_hit: cpu
# limits: {"cpu_ms": 1000, "wall_ms": 6000}
# host: no-leftover
import os
import signal

signal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals))
if os.fork() == 0:
    os.setsid()
    while True:
        pass
while True:
    pass
