# parity probe: threads still running when the main module ends: a
# non-daemon thread is joined (its output appears), a daemon thread is
# abandoned mid-sleep (its last line never appears). Deterministic: the
# joined thread waits on an event, not on time.
import sys
import threading
import time

ready = threading.Event()


def worker():
    ready.wait()
    time.sleep(0.05)
    print("non-daemon thread finished")


def daemon():
    print("daemon thread started", flush=True)
    time.sleep(30)
    print("daemon thread must not print this")


threading.Thread(target=worker, name="worker").start()
d = threading.Thread(target=daemon, name="daemon", daemon=True)
d.start()
time.sleep(0.05)
print("main module ends; threads:", sorted(t.name for t in threading.enumerate()))
ready.set()
sys.stdout.write("no newline at the end")


def probe():
    pass
