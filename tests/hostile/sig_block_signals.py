# Block every signal with sigprocmask in a child that outlives a fast parent
# exit, and in the main process while spinning.
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
