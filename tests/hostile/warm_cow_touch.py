# Copy the fork server's pages: import numpy and pandas (preloaded on the
# warm path, imported here on the cold one) and touch every object the
# interpreter holds, which writes each one's reference count. On the warm
# path the copies are this job's memory: its limit stops it; the server's
# own pages stay the server's, and it stays untouched. The same verdict on
# the cold path, where the imports alone pass the limit.
# expect: memory_limit
# limits: {"memory_mb": 40}
# host: warm-intact
# host: no-leftover
import gc

try:
    import numpy  # noqa: F401
    import pandas  # noqa: F401
except ImportError:         # a host without them: the copies alone fill it
    pass

keep = []
for _ in range(50):
    for o in gc.get_objects():
        keep.append(o)
    keep.append(bytearray(1 << 20))
print("never here", len(keep))
