# One peer fills the bytes that waiting requests may hold (--buffer-budget-mb)
# with large requests queued behind a job that holds the only worker, and
# every other peer is told busy for as long as that job runs (an outside
# attack, through the HTTP front: one tenant made every other tenant's
# requests 504 for the whole hold). A peer's waiting requests now hold at
# most half of those bytes, as it may have at most half of the jobs.
# Held when: the attacker is refused busy naming --buffer-budget-mb before
# it has queued more than half the budget, and another peer's large request,
# sent then, waits its turn and passes instead of being told busy.
# daemon-args: --workers 1 --buffer-budget-mb 64
# timeout: 120
import client_lib as L

PAD = "#" + "x" * (4 << 20) + "\npass\n"   # a 4 MiB request


def req(i, tenant, code):
    return {"id": "%s%d" % (tenant, i), "tenant": tenant, "code": code}


s = L.connect(timeout=60)
rd = L.Reader(s)
L.send(s, req(0, "attacker", "import time\ntime.sleep(5)\n"))
refused, victim = None, None
for i in range(1, 17):
    L.send(s, req(i, "attacker", PAD))
# Answers come as each request is refused or its job ends; the refusals
# come first, while the sleeping job holds the worker.
v = L.connect(timeout=60)
for _ in range(17):
    r = rd.json(timeout=60)
    if r is None:
        break
    if (r.get("error") or {}).get("code") == "busy":
        refused = r["error"].get("message", "")
        L.send(v, req(0, "victim", PAD))
        victim = L.read_json(v, timeout=60)
        break
s.close()
v.close()
L.log("attacker refused with: %s" % (refused or "never")[:200])
L.log("victim: %s" % (str(victim)[:200] if refused else "not sent"))

chk = L.Checks()
chk.expect(refused and "--buffer-budget-mb" in refused,
           "the attacker was told busy naming --buffer-budget-mb")
chk.expect(isinstance(victim, dict) and victim.get("verdict") == "pass",
           "another peer's large request waited its turn and passed")
chk.expect(L.ping(), "the daemon answers a ping")
chk.finish()
