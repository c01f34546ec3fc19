# A plain CPU loop.
# expect: timeout
# limit_hit: cpu
# limits: {"cpu_ms": 1000, "wall_ms": 5000}
# host: no-leftover
while True:
    pass
