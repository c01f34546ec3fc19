# Daemonize the classic way (fork, setsid, fork again, close the inherited
# fds) and leave a grandchild sleeping whose command line carries the run's
# marker; the main process then exits 0. The grandchild must not outlive
# the job.
# expect: pass
# stdout: contains PARENT-DONE
# host: no-leftover
import os
import sys
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in range(0, 64):
            try:
                os.close(fd)
            except OSError:
                pass
        os.execv(sys.executable, [sys.executable, "-c",
                 "import time; time.sleep(1000)  # leftover-@MARKER@"])
    os._exit(0)
time.sleep(0.5)
print("PARENT-DONE")
