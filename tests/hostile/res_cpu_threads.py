# CPU burned by several processes at once: the limit is for the whole job.
# requires: cgroup-cpu
# expect: timeout
# limit_hit: cpu
# limits: {"cpu_ms": 1000, "wall_ms": 8000}
# host: no-leftover
import os

for _ in range(3):
    if os.fork() == 0:
        break
while True:
    pass
