# runtime_error, limit_hit pids (under --pids 20): threads until the pids
# limit refuses one, then exit 1
import os
import threading

ev = threading.Event()
n = 0
try:
    while n < 100000:
        threading.Thread(target=ev.wait, daemon=True).start()
        n += 1
except RuntimeError as e:
    print("thread refused after", n, "threads:", e, flush=True)
    os._exit(1)
print("no refusal after", n, "threads", flush=True)
os._exit(0)
