# A client alternates the seeds of its test requests. A fork server serves
# one str hash seed (docs/architecture.md, "The warm path"), so the second
# request in a row with a seed no server has rebuilt the slot's server for
# it: imports and calibration, CPU that no job is charged for, once every
# two requests. Then, with the server on its seed, it sends one seeded
# request between each of another client's unseeded ones: that client's
# requests never came two in a row, so its server never came back and
# every one of them ran cold. Found by an outside attack (run_warm.c,
# WARM_AWAY_RATIO).
# Held when: while the seeds alternate, the slot starts servers for
# another seed at most once per WARM_AWAY_MIN_MS (1 s) of the phase, plus
# two (one at its start, one at a second's edge; the daemon's log), where
# they were one every two requests; and of the unseeded requests sent
# between seeded ones, the last five and at least half of all ran warm.
# daemon-args: --workers 1
# timeout: 180
import os
import time

import client_lib as L

LOG = os.environ.get("SBX_DAEMON_LOG", "")
if not LOG:
    L.skip("the driver gave no daemon log (SBX_DAEMON_LOG)")


def req(i, seed=None):
    r = {"id": "t%d" % i, "code": "def f(x):\n    return x\n", "format": "asserts",
         "tests": ["assert f(1) == 1"]}
    if seed is not None:
        r["seed"] = seed
    return r


def path(r):
    ok = isinstance(r, dict) and r.get("verdict") == "pass"
    return r.get("path") if ok else "failed: %s" % (r,)


def log_lines():
    with open(LOG, "rb") as f:
        return f.read().decode(errors="replace").splitlines()


# The evidence of a server started, independent of what the daemon logs:
# each start makes a cgroup named "<instance>-warm<slot>-<kind>-<pid>-<n>"
# (run_warm.c); slot 0's test-request server is kind 1.
TAG = "-warm0-1-%d-" % L.PID


def find_server_cgroups():
    for base in ("/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory", "/sys/fs/cgroup"):
        for top, dirs, _ in os.walk(base):
            if any(TAG in d for d in dirs):
                return top
            if top.count("/") > base.count("/") + 5:
                dirs[:] = []
    return None


def servers_now():
    try:
        return {d for d in os.listdir(CG_DIR) if TAG in d}
    except OSError:
        return set()


end = time.monotonic() + 30
while path(L.call(req(0))) != "warm":
    if time.monotonic() > end:
        L.skip("no test request ran warm within 30 s (a --cold daemon, or no fork "
               "server here): there is no server to rebuild")
    time.sleep(0.2)

# Phase 1: two requests with each seed, the seed changing every two. A
# server started for one lives at least until the next request, so sampling
# after each answer sees every one.
CG_DIR = find_server_cgroups()
before = sum("another seed" in ln for ln in log_lines())
seen = servers_now()
first = set(seen)
t0 = time.monotonic()
paths = []
for i in range(40):
    paths.append(path(L.call(req(i, 1000 + i // 2))))
    seen |= servers_now()
phase = time.monotonic() - t0
if CG_DIR:
    starts, how = len(seen - first), "the servers' cgroups in " + CG_DIR
else:
    starts = sum("another seed" in ln for ln in log_lines()) - before
    how = "the daemon's log (no server cgroup found: a daemon without cgroups)"
L.log("alternating seeds: %d requests in %.1f s, %d servers started for another seed "
      "(counted from %s); paths %s" % (len(paths), phase, starts, how,
                                       " ".join(str(p) for p in paths)))

# Phase 2: the server on seed 7, then one seeded request between each
# unseeded one.
end = time.monotonic() + 20
while path(L.call(req(1, 7))) != "warm" and time.monotonic() < end:
    time.sleep(0.1)
honest = []
for i in range(30):
    honest.append(path(L.call(req(100 + i))))
    L.call(req(200 + i, 7))
warm = sum(p == "warm" for p in honest)
L.log("unseeded requests between seeded ones: %s" % " ".join(str(p) for p in honest))

chk = L.Checks()
chk.expect(all(p in ("warm", "cold") for p in paths + honest), "every request passed")
chk.bound("servers started for another seed while the seeds alternated",
          starts, 2 + int(phase / 1.0))
chk.expect(warm * 2 >= len(honest) and all(p == "warm" for p in honest[-5:]),
           "the unseeded requests got their server back (%d of %d warm)" % (warm, len(honest)))
chk.expect(L.ping(), "the daemon answers a ping")
chk.finish()
