# Idle connections until the daemon refuses them, under systemd's default
# soft limit of 1024 open files. One connection is opened first, to submit
# a job while the flood is held.
# Held when: the job still runs (before the fix it failed with "pipe: Too
# many open files" at ~1,010 connections), the connections past the
# daemon's limit get a clear `busy` answer, the daemon's CPU stays low while
# the flood is held (before: accept() failed with EMFILE and the poll loop
# spun at 100%), and it serves new clients once the flood is gone.
# daemon-rlimit-nofile: 1024
# timeout: 180
import json
import select
import socket
import time

import client_lib as L

FLOOD = 5000  # past the default --max-connections (4096)

chk = L.Checks()
have = L.raise_nofile(FLOOD + 200)
if have < FLOOD + 100:
    L.skip("this process may open only %d files (needs %d)" % (have, FLOOD + 100))
victim = L.connect(timeout=60)
conns, stalled = [], 0


for i in range(FLOOD):
    s = L.connect_patiently()
    if s is None:
        stalled += 1  # the daemon stopped accepting
        if stalled >= 3:
            break
        continue
    conns.append(s)
L.log("opened %d connections (%d connects stalled); daemon fds %d" % (len(conns), stalled, L.nfds()))
time.sleep(1.0)
# The connections the daemon refused got one line and EOF.
busy = closed = 0
for s in conns:
    p = select.poll()
    p.register(s, select.POLLIN)
    if not p.poll(0):
        continue
    s.setblocking(True)
    s.settimeout(1.0)
    try:
        data = s.recv(4096)
    except OSError:
        data = b""
    closed += 1
    busy += b'"busy"' in data
L.log("refused: %d (%d with a busy answer)" % (closed, busy))
cpu0 = L.cpu_s()
time.sleep(3.0)
held_cpu = L.cpu_s() - cpu0
L.send(victim, {"id": "victim", "code": "print('ran')\n"})
r = L.read_json(victim, timeout=60)
L.log("victim: %s" % json.dumps(r)[:300])
cpu_job0 = L.cpu_s()
time.sleep(2.0)
held_cpu2 = L.cpu_s() - cpu_job0
chk.expect(r is not None and r.get("verdict") == "pass" and r.get("stdout") == "ran\n",
           "a job runs while the flood is held")
chk.expect(busy >= 1 and busy == closed, "every refused connection got a busy answer")
chk.bound("daemon CPU seconds in 3 s of held flood", round(held_cpu, 2), 0.5)
chk.bound("daemon CPU seconds in 2 s after the job", round(held_cpu2, 2), 0.5)
for s in conns:
    s.close()
victim.close()
time.sleep(1.0)
chk.expect(L.ping(), "a new client is served once the flood is gone")
chk.finish()
