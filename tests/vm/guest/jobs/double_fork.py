# pass: daemonizes the classic way (fork, setsid, fork) and leaves a
# grandchild sleeping whose command line carries the marker read from stdin;
# the main process exits 0. The plan then checks the grandchild is gone.
import os
import sys
import time

marker = sys.stdin.read().strip()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in range(0, 64):
            try:
                os.close(fd)
            except OSError:
                pass
        os.execv(sys.executable, [sys.executable, "-c",
                 "import time; time.sleep(1000)  # " + marker])
    os._exit(0)
time.sleep(0.5)
print("PARENT-DONE")
