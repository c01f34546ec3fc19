# memory_limit: grows until the cgroup's OOM killer acts
chunks = []
while True:
    chunks.append(bytearray(16 * 1024 * 1024))
