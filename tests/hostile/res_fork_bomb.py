# Fork bomb: every process forks forever. The pids limit refuses forks, the
# CPU/wall limit ends the job, and the kernel kills every process it started.
# expect: timeout|runtime_error
# limit_hit: any
# limits: {"cpu_ms": 2000, "wall_ms": 4000, "pids": 32}
# host: no-leftover
# host: daemon-alive
import os

while True:
    try:
        os.fork()
    except OSError:
        pass
