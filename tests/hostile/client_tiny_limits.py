# A client asks, again and again, for jobs whose memory limit the processes
# its slot prepared for the next job already fill: memory_mb 1, where that
# job's pid 1 and the job forked ahead of it already use more in the
# cgroup made ahead for it. Each such job used to take that cgroup: the
# limit's write failed (v1: EBUSY; on v2 the OOM killer would kill them),
# the job ended in `error`, and the slot's fork server was rebuilt, so any
# allowed client could keep every slot cold (run_warm.c, fits_prepared).
# It also asks for pids 1, which no job can run with (the jail's pid 1
# counts): a cold job's init could not fork the program (`error`), while a
# warm one ran above its limit. The daemon raises it to 2 (limits_resolve).
# Held when: none of those jobs ends in `error`, a pids 1 job is shown
# pids 2 and its own fork is refused, the daemon's log shows no fork server
# rebuilt or failing while they ran, and a bystander's job right after them
# runs warm.
# requires: cgroup-memory
# timeout: 120
import os
import time

import client_lib as L

LOG = os.environ.get("SBX_DAEMON_LOG", "")
if not LOG:
    L.skip("the driver gave no daemon log (SBX_DAEMON_LOG)")


def warm_job(i):
    r = L.call({"id": "by%d" % i, "code": "pass"})
    return isinstance(r, dict) and r.get("verdict") == "pass" and r.get("path") == "warm"


end = time.monotonic() + 30
while not warm_job(0):
    if time.monotonic() > end:
        L.skip("no job ran warm within 30 s (a --cold daemon, or no fork server "
               "here): there is no cgroup made ahead to attack")
    time.sleep(0.2)

with open(LOG, "rb") as f:
    f.seek(0, os.SEEK_END)
    off = f.tell()
verdicts = []
for i in range(6 * L.WORKERS):
    r = L.call({"id": "tiny%d" % i, "code": "print('tiny')", "limits": {"memory_mb": 1}})
    verdicts.append((r or {}).get("verdict"))
L.log("verdicts of the 1 MB jobs: %s" % ", ".join(str(v) for v in verdicts))
FORK = ("import os\ntry:\n    pid = os.fork()\nexcept OSError:\n    print('refused')\n"
        "else:\n    if pid == 0:\n        os._exit(0)\n    os.waitpid(pid, 0)\n"
        "    print('forked')\n")
ones = [L.call({"id": "one%d" % i, "code": FORK, "limits": {"pids": 1}}) or {}
        for i in range(2 * L.WORKERS)]
L.log("pids 1 jobs: %s" % ", ".join("%s pids=%s %s" % (r.get("verdict"),
      (r.get("limits") or {}).get("pids"), (r.get("stdout") or "").strip()) for r in ones))
bystander = warm_job(1)
with open(LOG, "rb") as f:
    f.seek(off)
    lines = f.read().decode(errors="replace").splitlines()
bad = [ln for ln in lines if "fork server" in ln and
       ("rebuilding" in ln or "took no limits" in ln or "failed" in ln)]
for ln in bad[:5]:
    L.log("log: " + ln)

chk = L.Checks()
chk.expect(verdicts and all(v not in (None, "error") for v in verdicts),
           "no 1 MB job ended in error (each was judged)")
chk.expect(all(r.get("verdict") == "pass" and (r.get("limits") or {}).get("pids") == 2 and
               r.get("stdout") == "refused\n" for r in ones),
           "every pids 1 job ran with pids 2 shown, its own fork refused")
chk.expect(not bad, "no fork server was rebuilt or failed while they ran")
chk.expect(bystander, "a bystander's job right after them ran warm")
chk.expect(L.ping(), "the daemon answers a ping")
chk.finish()
