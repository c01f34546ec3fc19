# Memory spread over many processes, each below the limit on its own (8 x
# 24 MiB with memory_mb 96): the limit is for the job as a whole. The
# children volunteer as the OOM killer's victims (oom_score_adj 1000), the
# parent waits for them and exits 0: the OOM kill still decides the verdict
# (protocol.md: "the first cause wins: ... then an OOM kill, then the
# program's own exit status").
# requires: cgroup-memory
# expect: memory_limit
# limit_hit: memory
# limits: {"memory_mb": 96, "wall_ms": 10000}
# host: no-leftover
import os
import time

pids = []
for _ in range(8):
    pid = os.fork()
    if pid == 0:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
        data = b"\x07" * (24 << 20)
        time.sleep(2)
        os._exit(0)
    pids.append(pid)
for pid in pids:
    _, status = os.waitpid(pid, 0)
    print("child", pid, "status", status)
