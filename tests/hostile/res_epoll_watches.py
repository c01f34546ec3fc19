# Kernel memory through epoll watches: every process registers 200
# descriptors in 250 epoll instances (50,000 watches, ~10 MB of kernel
# memory each), in 31 processes. Watches are charged to the job's memory
# cgroup, so a 64 MB job ends in memory_limit; fs.epoll.max_user_watches is
# per uid and each job slot has its own uid.
# requires: cgroup-memory
# expect: memory_limit
# limit_hit: memory
# limits: {"memory_mb": 64, "wall_ms": 20000, "cpu_ms": 15000}
# host: no-leftover
import os
import select
import time

fds = [os.eventfd(0) for _ in range(200)]


def watch():
    eps = []
    for _ in range(250):
        ep = select.epoll()
        eps.append(ep)
        for f in fds:
            ep.register(f, select.EPOLLIN)
    return eps


for _ in range(30):
    if os.fork() == 0:
        held = watch()
        time.sleep(5)
        os._exit(0)
held = watch()
time.sleep(5)
print("every watch made and still alive", flush=True)
