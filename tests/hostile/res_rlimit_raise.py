# Try to raise the rlimits the jail sets back to infinity, then spin: the
# raises are refused and the job is still a CPU timeout.
# expect: timeout
# limit_hit: cpu
# limits: {"cpu_ms": 1000, "wall_ms": 5000}
# stdout: contains RAISE-REFUSED
# stdout: not-contains RAISED-TO-INF
# host: no-leftover
import resource
import sys

for name in ("RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE"):
    r = getattr(resource, name)
    try:
        resource.setrlimit(r, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        print(name, "RAISED-TO-INF", resource.getrlimit(r))
    except (ValueError, OSError) as e:
        print(name, "refused:", e)
print("RAISE-REFUSED")
sys.stdout.flush()
while True:
    pass
