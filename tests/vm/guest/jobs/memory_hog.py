# memory_limit, limit_hit memory (under --memory 64): grows until the
# cgroup's OOM killer acts (bytearray(n) writes its n zero bytes)
chunks = []
while True:
    chunks.append(bytearray(16 * 1024 * 1024))
