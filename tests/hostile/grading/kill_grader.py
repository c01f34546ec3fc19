# format: humaneval
# in-process: fail
# process: fail
# Kills every other process of the job it can signal (the grader, in
# process mode: a pid namespace of its own, so only the job's processes
# are visible), then itself. Outside a jail (the runner's own tests, on a
# shared host) it only exits.
import os
import signal


def solve(x):
    me = os.getpid()
    if os.path.isdir("/sandboxd"):
        for p in os.listdir("/proc"):
            if p.isdigit() and int(p) not in (me, 1):
                try:
                    os.kill(int(p), signal.SIGKILL)
                except OSError:
                    pass
    os._exit(0)
