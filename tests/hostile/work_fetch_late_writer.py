# A job that leaves a process behind still writing to the fetched file, and
# one that swaps the file for a symlink in a loop: when the daemon reads, the
# job's PID namespace is gone, so what comes back is a consistent file or an
# error, never the host's secret, and the daemon is not held up.
# expect: pass
# fetch: ["grow", "swap"]
# host: fetch-clean
# host: daemon-alive
# host: no-leftover
import os

os.chdir("/work")
open("grow", "w").write("start")
open("swap", "w").write("plain")
if os.fork() == 0:
    os.setsid()
    n = 0
    while True:
        with open("grow", "a") as f:
            f.write("x" * 100)
        try:
            os.rename("swap", "swap.old")
            os.symlink("/root/sbx-secret-@MARKER@", "swap")
            os.unlink("swap")
            os.rename("swap.old", "swap")
        except OSError:
            pass
        n += 1
        if os.path.getsize("grow") > (1 << 20):
            os.truncate("grow", 0)
print("main exits")
