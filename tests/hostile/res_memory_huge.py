# Memory bomb, one huge allocation written in a single expression. 1 GiB,
# ten times the limit: large enough that only the cgroup can stop it, small
# enough that no host (a 2 GiB VM without swap, strict overcommit) refuses
# the allocation up front, which would end in MemoryError and test nothing.
# requires: cgroup-memory
# expect: memory_limit
# limit_hit: memory
# limits: {"memory_mb": 96, "cpu_ms": 5000, "wall_ms": 10000}
# host: no-leftover
# host: daemon-alive
big = b"\x01" * (1 << 30)
print(len(big))
