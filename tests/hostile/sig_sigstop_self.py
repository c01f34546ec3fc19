# The job stops itself with SIGSTOP: it uses no CPU and never exits, so the
# wall limit must end it, and nothing may stay behind (a stopped process
# ignores everything but SIGKILL).
# expect: timeout
# limit_hit: wall
# limits: {"wall_ms": 1500}
# host: no-leftover
import os
import signal

if os.fork() == 0:
    os.kill(os.getpid(), signal.SIGSTOP)
    os._exit(0)
os.kill(os.getpid(), signal.SIGSTOP)
print("resumed?!")
