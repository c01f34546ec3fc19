# /proc/meminfo is the job's: MemTotal, MemFree and MemAvailable are its
# memory limit (200 MiB here), not the host's memory.
# limits: {"memory_mb": 200}
# expect: pass
# violation: none
# stdout: contains PROC-MEMINFO-OK
info = {}
for line in open("/proc/meminfo"):
    k, _, v = line.partition(":")
    info[k] = int(v.split()[0])
print({k: info.get(k) for k in ("MemTotal", "MemFree", "MemAvailable", "SwapTotal")})
assert info["MemTotal"] == 200 * 1024, "MemTotal is not the job's limit"
assert info["MemFree"] <= 200 * 1024 and info["MemAvailable"] <= 200 * 1024
print("PROC-MEMINFO-OK")
