# Memory bomb, one huge allocation: 4 GiB written in a single expression.
# requires: cgroup-memory
# expect: memory_limit
# limit_hit: memory
# limits: {"memory_mb": 96, "cpu_ms": 5000, "wall_ms": 10000}
# host: no-leftover
# host: daemon-alive
big = b"\x01" * (4 << 30)
print(len(big))
