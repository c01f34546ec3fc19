# A plain CPU loop.
# The wall limit is far above the CPU limit so that a loaded machine (a
# 2-core runner at load 12 gives the loop a sixth of a CPU) still ends on CPU.
# expect: timeout
# limit_hit: cpu
# limits: {"cpu_ms": 1000, "wall_ms": 20000}
# host: no-leftover
while True:
    pass
