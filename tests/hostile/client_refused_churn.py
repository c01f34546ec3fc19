# Hold every connection slot, then connect and close again and again: each
# refused connection is answered `busy` through the daemon's buffer
# accounting. Before the fix the refusal's charge was never given back, so
# about 200,000 refusals used up a 16 MiB buffer budget for good: from then
# on every job and even every ping was answered `busy` until a restart.
# Held when: after the churn (more refusals than the budget could absorb if
# each leaked its line), a freed slot serves a ping and a job.
# daemon-args: --max-connections 2 --buffer-budget-mb 16
# timeout: 240
import socket
import time

import client_lib as L

CHURN = 300_000  # x ~80 bytes of "busy" line > 16 MiB

chk = L.Checks()
held = [L.connect(), L.connect()]
for s in held:
    L.send(s, {"op": "ping", "id": "hold"})
    L.read_json(s, timeout=30)
t0 = time.monotonic()
refused = 0
for _ in range(CHURN):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(L.SOCK)
        refused += 1
    except OSError:
        pass  # the listen backlog was full for a moment
    finally:
        s.close()
L.log("%d refused connections in %.1f s" % (refused, time.monotonic() - t0))
held.pop().close()
time.sleep(0.3)
ping = L.ping()
job = L.call({"id": "after-churn", "code": "print('ok')\n"}, timeout=60)
chk.expect(refused > CHURN // 2, "the churn reached the daemon")
chk.expect(ping, "a ping is answered after the churn")
chk.expect(job is not None and job.get("verdict") == "pass", "a job runs after the churn")
for s in held:
    s.close()
chk.finish()
