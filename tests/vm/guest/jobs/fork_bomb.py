# runtime_error, limit_hit pids (under --pids 20): every process forks
# forever; the first process exits 1 once the pids limit refuses it a fork
# (the job's init then kills every other process).
import os
import sys
import time

main = os.getpid()
while True:
    try:
        os.fork()
    except OSError as e:
        if os.getpid() == main:
            print("fork refused:", e.strerror, flush=True)
            sys.exit(1)
        time.sleep(60)
        os._exit(0)
