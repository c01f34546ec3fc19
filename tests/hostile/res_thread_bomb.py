# Thread bomb: start sleeping threads until the pids limit refuses one. The
# count must stay within the limit; the job then exits normally.
# expect: pass
# limits: {"pids": 24, "wall_ms": 10000}
# stdout: contains BOUNDED
# host: no-leftover
# host: daemon-alive
import os
import sys
import threading
import time

ev = threading.Event()
n = 0
try:
    while n < 100000:
        t = threading.Thread(target=ev.wait, daemon=True)
        t.start()
        n += 1
except (RuntimeError, OSError) as e:
    print("refused after", n, "threads:", e)
print("BOUNDED" if n < 24 else "UNBOUNDED", n)
sys.stdout.flush()
os._exit(0)
