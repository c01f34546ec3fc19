# Memory bomb, gradual: 1 MiB at a time, each page touched.
# requires: cgroup-memory
# expect: memory_limit
# limit_hit: memory
# limits: {"memory_mb": 96, "cpu_ms": 5000, "wall_ms": 10000}
# host: no-leftover
# host: daemon-alive
chunks = []
while True:
    chunks.append(b"\x01" * (1 << 20))
