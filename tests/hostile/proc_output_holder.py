# A detached child that keeps stdout and stderr open (and ignores every
# catchable signal) after the main process exits: the job still ends when
# its main process does, and the child does not survive it.
# expect: pass
# limits: {"wall_ms": 8000}
# stdout: contains MAIN-EXIT
# host: no-leftover
import os
import signal
import sys
import time

if os.fork() == 0:
    os.setsid()
    for s in signal.Signals:
        if s not in (signal.SIGKILL, signal.SIGSTOP):
            try:
                signal.signal(s, signal.SIG_IGN)
            except (OSError, ValueError):
                pass
    os.execv(sys.executable, [sys.executable, "-c",
             "import time\nwhile True:\n    time.sleep(0.05)\n# leftover-@MARKER@"])
time.sleep(0.3)
print("MAIN-EXIT", flush=True)
