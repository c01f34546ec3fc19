# 8 MiB on stdin that the job never reads: the daemon must not block on the
# full pipe (nor keep other jobs waiting); the job exits normally.
# expect: pass
# stdin_bytes: 8388608
# limits: {"wall_ms": 10000}
# stdout: contains NOT-READ
# host: daemon-alive
import time

time.sleep(0.5)
print("NOT-READ")
