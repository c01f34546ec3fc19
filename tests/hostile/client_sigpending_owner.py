# A warm job creates POSIX timers until the kernel refuses one, and holds
# them. Each timer reserves a pending signal, which the kernel counts
# against the job's uid and against the owner of every user namespace
# above it, on the host too. The fork servers' user namespaces were made
# by root, so a job's timers used up root's count: while it held them,
# timer_create and sigqueue failed with EAGAIN for every root process on
# the host and in every other slot's warm jobs. Found by an outside attack
# (zygote.c: the namespace is now made by the slot's server uid).
# Held when: the job ran warm and the kernel stopped it at a limit, and
# while it held its timers a root process here, with the daemon's own
# RLIMIT_SIGPENDING, still created one.
# daemon-args: --workers 1
# timeout: 120
import ctypes
import os
import re
import resource
import time

import client_lib as L

libc = ctypes.CDLL(None, use_errno=True)
HOLD_S = 8

JOB = """
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
t = ctypes.c_void_p()
n, err = 0, 0
while n < %d:
    if libc.timer_create(1, None, ctypes.byref(t)) != 0:
        err = ctypes.get_errno()
        break
    n += 1
print("TIMERS %%d ERRNO %%d" %% (n, err), flush=True)
time.sleep(%d)
"""


def daemon_sigpending():
    with open("/proc/%d/limits" % L.PID) as f:
        for ln in f:
            if ln.startswith("Max pending signals"):
                return int(ln.split()[3])
    return None


def host_timer():
    """0 when a root process here can create a timer, else the errno."""
    t = ctypes.c_void_p()
    if libc.timer_create(1, None, ctypes.byref(t)) != 0:
        return ctypes.get_errno()
    libc.timer_delete(t)
    return 0


def job_sigq():
    """The largest pending-signal count of a process of the daemon's job
    uids (SigQ of /proc/PID/status: the count of its uid, its limit)."""
    best = 0
    lo, hi = L.UID_BASE, L.UID_BASE + 3 * L.WORKERS
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/status" % p) as f:
                st = f.read()
        except OSError:
            continue
        uid = re.search(r"^Uid:\s+(\d+)", st, re.M)
        q = re.search(r"^SigQ:\s+(\d+)/", st, re.M)
        if uid and q and lo <= int(uid.group(1)) < hi:
            best = max(best, int(q.group(1)))
    return best


if not L.PID or not L.UID_BASE:
    L.skip("the driver gave no daemon pid or uid base")
lim = daemon_sigpending()
if not lim:
    L.skip("no RLIMIT_SIGPENDING in /proc/%d/limits" % L.PID)
if lim > 500000:  # about 400 bytes of the job's memory a timer
    L.skip("the daemon's RLIMIT_SIGPENDING (%d) is more timers than a job's memory "
           "holds" % lim)
# Root's count is compared with the caller's own limit: the daemon's here,
# so the attack meets the limit the host's root processes have.
_, hard = resource.getrlimit(resource.RLIMIT_SIGPENDING)
resource.setrlimit(resource.RLIMIT_SIGPENDING,
                   (lim if hard == resource.RLIM_INFINITY else min(lim, hard), hard))
if host_timer():
    L.skip("a root process here cannot create a timer before the attack (errno %d)"
           % host_timer())

end = time.monotonic() + 30
while True:
    r = L.call({"id": "w", "code": "pass"})
    if isinstance(r, dict) and r.get("path") == "warm":
        break
    if time.monotonic() > end:
        L.skip("no job ran warm within 30 s (a --cold daemon, or no fork server "
               "here): no user namespace of a server to count against")
    time.sleep(0.2)

# At most twice the limit (at most 400 MB of timers, within the job's 1 GB):
# a kernel that does not count timers against RLIMIT_SIGPENDING lets the
# job make them all, and there is no count to use up.
cap = 2 * lim
s = L.connect(timeout=60)
L.send(s, {"id": "hog", "code": JOB % (cap, HOLD_S),
           "limits": {"wall_ms": (HOLD_S + 10) * 1000, "memory_mb": 1024}})
# Once the job's count holds still (its timers all made), look.
held, during = 0, None
end = time.monotonic() + HOLD_S
while time.monotonic() < end:
    last, held = held, job_sigq()
    if held >= lim // 2 and held == last:
        during = host_timer()
        break
    time.sleep(0.1)
r = L.Reader(s).json(timeout=HOLD_S + 30)
s.close()
out = (r or {}).get("stdout", "")
m = re.search(r"TIMERS (\d+) ERRNO (\d+)", out)
L.log("job: %s, path %s, %s; its pending-signal count seen %d (the daemon's limit %d); "
      "a root timer_create while it held them: %s" % (
          (r or {}).get("verdict"), (r or {}).get("path"), m.group(0) if m else "no count",
          held, lim, "not tried" if during is None else
          ("ok" if during == 0 else os.strerror(during))))

if m and int(m.group(1)) >= cap and int(m.group(2)) == 0:
    L.skip("this kernel does not count POSIX timers against RLIMIT_SIGPENDING (the job "
           "made %s timers, twice the limit): nothing to use up" % m.group(1))
chk = L.Checks()
chk.expect(r and r.get("verdict") == "pass" and r.get("path") == "warm",
           "the job ran warm and passed")
chk.expect(m and int(m.group(2)) == 11 and held >= lim // 2,
           "the job held timers up to a limit (EAGAIN) while the host looked")
chk.expect(during == 0, "a root process on the host created a timer meanwhile")
chk.expect(host_timer() == 0, "and one after the job")
chk.expect(L.ping(), "the daemon answers a ping")
chk.finish()
