# 40 connections each send a 16 MiB request line and never its newline, so
# the daemon would hold 640 MiB of partial lines (before the fix: RSS 35 ->
# 456 MB, with 4096 connections the host's memory). The daemon runs with a
# 64 MiB buffer budget.
# Held when: the daemon's RSS grows by about the budget at most while the
# partial lines are held, the lines past the budget are answered `busy`,
# and other clients are still served (a ping, a job) meanwhile.
# daemon-args: --buffer-budget-mb 64
# timeout: 180
import json
import threading
import time

import client_lib as L

N, LINE = 40, 16 << 20

chk = L.Checks()
L.raise_nofile(N + 100)
rss0 = L.rss_kb()
conns = [L.connect(timeout=120) for _ in range(N)]
chunk = b'{"id":"x","code":"' + b"a" * (LINE - 64)
sent = [0] * N


def flood(i):
    try:
        conns[i].sendall(chunk)  # no newline: the line never ends
        sent[i] = 1
    except OSError:
        pass


threads = [threading.Thread(target=flood, args=(i,)) for i in range(N)]
for t in threads:
    t.start()
for t in threads:
    t.join(timeout=120)
time.sleep(1.0)
rss = L.rss_kb()
L.log("sent %d x %d MiB; daemon RSS %d -> %d KiB" % (sum(sent), LINE >> 20, rss0, rss))
busy = 0
for s in conns:
    r = L.Reader(s).json(timeout=0.2)
    busy += bool(r and (r.get("error") or {}).get("code") == "busy")
L.log("%d told busy" % busy)
ping = L.ping()
job = L.call({"id": "bystander", "code": "print('ok')\n"}, timeout=60)
L.log("bystander: %s" % json.dumps(job)[:200])
chk.bound("daemon RSS growth MiB with the lines held", (rss - rss0) // 1024, 64 + 32, memory=True)
chk.expect(busy >= 1, "lines past the budget are answered busy")
chk.expect(ping, "a ping is answered meanwhile")
chk.expect(job is not None and job.get("verdict") == "pass", "a job runs meanwhile")
for s in conns:
    s.close()
time.sleep(0.5)
chk.expect(L.ping(), "the daemon answers a ping afterwards")
chk.finish()
