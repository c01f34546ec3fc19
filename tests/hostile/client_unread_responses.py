# A client submits 120 jobs that each print 1 MiB and never reads a
# response: the daemon would hold them all (before: ~120 MB of unsent
# replies for one connection, up to 512 MiB each, for 4096 connections).
# The daemon runs with a 16 MiB buffer budget and 4 MiB responses.
# Held when: the daemon's RSS stays near the budget (that client is
# refused new jobs and then disconnected, never the daemon's memory
# spent), while a bystander on another connection is served.
# daemon-args: --buffer-budget-mb 16 --max-response-mb 4
# timeout: 180
import json
import time

import client_lib as L

N = 120
JOB = "import sys\nsys.stdout.write('x' * (1 << 20))\n"

chk = L.Checks()
rss0 = L.rss_kb()
hog = L.connect(timeout=60)
hog.setblocking(True)
for i in range(N):
    try:
        L.send(hog, {"id": "hog-%d" % i, "code": JOB, "limits": {"output_kb": 1100}})
    except OSError:
        break
# The jobs run; the hog reads nothing. Sample the daemon's RSS meanwhile.
peak, end = 0, time.monotonic() + 25
bystander = None
while time.monotonic() < end:
    peak = max(peak, L.rss_kb())
    if bystander is None and time.monotonic() > end - 20:
        bystander = L.call({"id": "bystander", "code": "print('ok')\n"}, timeout=60)
    time.sleep(0.2)
L.log("daemon RSS %d KiB, peak %d KiB while unread" % (rss0, peak))
L.log("bystander: %s" % json.dumps(bystander)[:200])
chk.bound("daemon RSS growth MiB", (peak - rss0) // 1024, 16 + 4 * L.WORKERS * 3 + 24, memory=True)
chk.expect(bystander is not None and bystander.get("verdict") == "pass",
           "a bystander's job is served")
hog.close()
time.sleep(0.5)
chk.expect(L.ping(), "the daemon answers a ping afterwards")
chk.finish()
