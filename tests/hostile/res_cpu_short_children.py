# CPU spent by short-lived children that exit (and are reaped) before anyone
# samples them: the job's CPU time must still add up to a timeout.
# requires: cgroup-cpu
# expect: timeout
# limit_hit: cpu
# limits: {"cpu_ms": 1000, "wall_ms": 8000}
# host: no-leftover
import os
import time

while True:
    pid = os.fork()
    if pid == 0:
        end = time.process_time() + 0.15
        while time.process_time() < end:
            pass
        os._exit(0)
    os.waitpid(pid, 0)
