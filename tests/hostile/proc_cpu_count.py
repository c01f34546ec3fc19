# The CPU count a program sees is the job's CPU cap (one CPU by default),
# not the host's: os.cpu_count() (glibc reads /proc/stat in the jail, /sys
# being absent), multiprocessing, the processors of /proc/cpuinfo, the cpuN
# lines of /proc/stat, and sysconf's configured count (OpenBLAS's).
# expect: pass
# violation: none
# stdout: contains PROC-CPU-COUNT-OK
import multiprocessing
import os

cpuinfo = sum(1 for l in open("/proc/cpuinfo") if l.startswith("processor"))
stat = sum(1 for l in open("/proc/stat") if l.startswith("cpu") and l[3].isdigit())
counts = {"os.cpu_count": os.cpu_count(), "multiprocessing": multiprocessing.cpu_count(),
          "SC_NPROCESSORS_CONF": os.sysconf("SC_NPROCESSORS_CONF"), "cpuinfo": cpuinfo,
          "stat": stat}
print(counts, "affinity:", sorted(os.sched_getaffinity(0)))
assert all(v == 1 for v in counts.values()), "the host's CPU count is visible"
print("PROC-CPU-COUNT-OK")
