# A client sends pings and never reads an answer. A ping's answer holds
# every profile's interpreter version and importable libraries (up to 512
# each: several KiB on a machine with a few hundred packages, from a
# 23-byte request), and pings were queued with no regard to the buffer
# budget, up to 512 MiB of unsent answers per connection (before: ~530 MB
# of RSS from under 1 MB of requests, for each of a peer's connections).
# The daemon runs with a 16 MiB buffer budget.
# Held when: the daemon's RSS stays near the budget (the client that does
# not read is disconnected at the budget, as for job responses), and a
# bystander's ping is answered.
# daemon-args: --buffer-budget-mb 16
# timeout: 120
import json
import socket
import time

import client_lib as L

chk = L.Checks()
# The answer is at its largest once the profiles' probe has run.
size, end = 0, time.monotonic() + 30
while time.monotonic() < end:
    s = L.connect()
    L.send(s, {"op": "ping", "id": "p"})
    r = L.read_json(s)
    s.close()
    size = len(json.dumps(r, separators=(",", ":")))
    if any(p.get("libraries") for p in (r.get("profiles") or {}).values()):
        break
    time.sleep(0.5)
L.log("a ping's answer: %d bytes" % size)
# Enough pings for 256 MiB of answers, sent for at most 30 s.
want = (256 << 20) // max(size, 1) + 1
line = b'{"op":"ping","id":"p"}\n'
rss0 = L.rss_kb()
hog = L.connect()
hog.setblocking(False)
sent, peak, closed = 0, rss0, False
end = time.monotonic() + 30
while sent < want * len(line) and time.monotonic() < end:
    try:
        sent += hog.send(line * 1000)
    except BlockingIOError:
        time.sleep(0.01)
    except OSError:
        closed = True
        break
    peak = max(peak, L.rss_kb())
for _ in range(20):
    peak = max(peak, L.rss_kb())
    time.sleep(0.1)
L.log("sent %d pings, %s; daemon RSS %d KiB, peak %d KiB"
      % (sent // len(line), "disconnected" if closed else "still connected", rss0, peak))
chk.bound("daemon RSS growth MiB", (peak - rss0) // 1024, 16 + 24, memory=True)
chk.expect(L.ping(), "a bystander's ping is answered")
hog.close()
chk.finish()
