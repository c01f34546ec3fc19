# Forged evidence: the job lowers its own RLIMIT_CPU to 1 s and spins, so
# the kernel sends a genuine SIGXCPU at 1 s of CPU while the job's limit is
# 10 s. The kernel's count of the job's CPU is then far below cpu_ms, so
# this is not the CPU limit firing: runtime_error naming SIGXCPU, no
# limit_hit (docs/protocol.md, SECURITY.md "The verdict"). Genuine CPU
# exhaustion stays timeout/cpu (res_cpu_loop.py).
# expect: runtime_error
# limit_hit: none
# violation: none
# limits: {"cpu_ms": 10000, "wall_ms": 15000}
# stdout: contains LOWERED RLIMIT_CPU to 1 s
# host: no-leftover
import resource

soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
resource.setrlimit(resource.RLIMIT_CPU, (1, hard))
print("LOWERED RLIMIT_CPU to 1 s (was %d, hard %d)" % (soft, hard), flush=True)
while True:
    pass
