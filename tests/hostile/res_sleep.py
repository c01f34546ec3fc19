# Sleeping uses no CPU: only the wall limit stops it.
# expect: timeout
# limit_hit: wall
# limits: {"wall_ms": 1500}
# host: no-leftover
import time

time.sleep(1000)
