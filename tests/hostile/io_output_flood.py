# Flood stdout and stderr at the same time from two threads and a child:
# the output limit fires, the daemon keeps both streams bounded.
# expect: output_limit
# limit_hit: output
# limits: {"output_kb": 64, "wall_ms": 10000, "cpu_ms": 5000}
# host: no-leftover
# host: daemon-alive
import os
import threading

block = b"A" * 65536


def flood(fd):
    while True:
        os.write(fd, block)


if os.fork() == 0:
    flood(1)
threading.Thread(target=flood, args=(2,), daemon=True).start()
flood(1)
