# The daemon runs out of descriptors anyway (an operator lowered its limit
# with prlimit, or the host's file table is full): accept() fails with
# EMFILE while 200 clients wait in the backlog.
# Held when: each waiting client is told `busy` and closed (the spare-
# descriptor trick) instead of waiting forever, the daemon's CPU stays low
# while they are held (before the fix: poll() reported the socket readable,
# accept() failed, and the loop spun at 100% CPU), and once the limit is
# back, new clients and jobs are served.
# timeout: 120
import json
import resource
import select
import time

import client_lib as L

N = 200

chk = L.Checks()
L.raise_nofile(N + 100)
victim = L.connect(timeout=60)
time.sleep(0.2)
old = resource.prlimit(L.PID, resource.RLIMIT_NOFILE)
resource.prlimit(L.PID, resource.RLIMIT_NOFILE, (L.nfds(), old[1]))
try:
    conns = []
    for i in range(N):
        s = L.connect_patiently(wait=5.0)
        if s is None:
            break
        conns.append(s)
    L.log("%d connected" % len(conns))
    time.sleep(1.0)
    busy, end = 0, time.monotonic() + 5.0
    for s in conns:
        p = select.poll()
        p.register(s, select.POLLIN)
        if p.poll(max(0, int((end - time.monotonic()) * 1000))):
            try:
                busy += b'"busy"' in s.recv(4096)
            except OSError:
                pass
    L.log("%d told busy" % busy)
    cpu0 = L.cpu_s()
    time.sleep(3.0)
    held_cpu = L.cpu_s() - cpu0
finally:
    resource.prlimit(L.PID, resource.RLIMIT_NOFILE, old)
for s in conns:
    s.close()
chk.expect(len(conns) == N and busy == N, "every client past the limit was told busy")
chk.bound("daemon CPU seconds in 3 s out of descriptors", round(held_cpu, 2), 0.5)
time.sleep(0.5)
chk.expect(L.ping(), "new clients are served once the limit is back")
L.send(victim, {"id": "victim", "code": "print('ran')\n"})
r = L.read_json(victim, timeout=60)
L.log("victim: %s" % json.dumps(r)[:200])
chk.expect(r is not None and r.get("verdict") == "pass", "a job runs once the limit is back")
chk.finish()
