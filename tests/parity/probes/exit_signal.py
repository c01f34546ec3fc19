# parity probe: the program kills itself with SIGTERM (default
# disposition). Under a pid namespace a process that is not its init dies
# of it; the response's signal and exit_code must be the same on both paths.
import os
import signal
import time

print("pid", os.getpid(), flush=True)
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(0.5)
print("still alive after SIGTERM")


def probe():
    pass
