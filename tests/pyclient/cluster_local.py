"""Multi-endpoint run on one machine (make check-cluster-local): three
daemons, each with its own cgroup parent, uid range and share of the memory
budget; the Python client spreads 1,000 small jobs over their three sockets;
one daemon is SIGKILLed mid-run; every job must still get exactly one
correct result. The HTTP variant does the same through three sandboxd-http
fronts on loopback ports (Client(urls=[...])); it skips, saying so, when
$SBX_BUILD/sandboxd-http is not built."""
import glob
import os
import pwd
import socket
import subprocess
import sys
import time
import unittest

from pyclient_support import BUILD, Daemon, _pdeathsig

from sandboxd import Client

N = int(os.environ.get("SBX_CLUSTER_JOBS", "1000"))
KILL_AT = N // 3


def cgroup_mounts():
    """Mount points of the cgroup hierarchies (v1 controllers and v2)."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            parts = line.split()
            fstype = parts[parts.index("-") + 1]
            if fstype in ("cgroup", "cgroup2"):
                out.append(parts[4])
    return out


def remove_parent(parent):
    """Leaves the hierarchies as they were: the parent the daemons made (its
    subtree is empty once they stopped), deepest directories first."""
    for m in cgroup_mounts():
        top = m + parent
        for d in sorted(glob.glob(top + "/**/", recursive=True), key=len, reverse=True):
            try:
                os.rmdir(d)
            except OSError:
                pass


def start_daemons(parent, *more):
    """Three daemons, each with its own cgroup parent, uid range (Daemon
    gives each its own) and share of the memory budget."""
    budget = os.environ.get("SBX_CLUSTER_BUDGET_MB", "1536")  # each daemon's share
    cgroups = "--no-cgroups" not in os.environ.get("SBX_TEST_DAEMON_ARGS", "")
    ds = []
    try:
        for k in range(3):
            extra = ["--memory-budget", budget]
            if cgroups:
                extra += ["--cgroup-parent", "%s/d%d" % (parent, k)]
            ds.append(Daemon(*(extra + list(more)), workers=2, dir_mode=0o711))
    except Exception:
        for d in ds:
            d.cleanup()
        raise
    return ds


def spread_and_kill(tc, client, endpoints, victim, kill):
    """Runs N jobs through client (whose endpoints are `endpoints`, in the
    names Result.endpoint uses), calls kill() once a third of the results
    are in, and checks every job got exactly one correct result, the load
    was spread, the kill hit jobs in flight and no re-sent job was answered
    by `victim`. The HTTP-front variant passes the fronts' URLs."""
    reqs = [{"id": "job-%d" % i, "code": "import sys\nprint(%d * 3 + 1)\n"
             "print('ok', file=sys.stderr)" % i,
             "limits": {"memory_mb": 64, "cpu_ms": 5000}} for i in range(N)]
    seen, dupes = {}, []
    t0 = time.monotonic()
    for r in client.run_many(reqs, concurrency=18):
        if r.index in seen:
            dupes.append(r.index)
        seen[r.index] = r
        if len(seen) == KILL_AT:
            kill()
    took = time.monotonic() - t0
    tc.assertEqual(dupes, [], "results delivered twice")
    tc.assertEqual(sorted(seen), list(range(N)), "results missing")
    bad = [(i, r.error, r.verdict, r.stdout) for i, r in seen.items()
           if not r.ok or r.verdict != "pass" or r.stdout != "%d\n" % (i * 3 + 1)
           or r.request_id != "job-%d" % i]
    tc.assertEqual(bad[:5], [], "%d wrong results" % len(bad))
    by = {e: 0 for e in endpoints}
    for r in seen.values():
        by[r.endpoint] += 1
    resent = [r for r in seen.values() if r.attempts > 1]
    after = [r for r in resent if r.endpoint == victim]
    print("cluster-local: %d jobs in %.1f s (%.0f jobs/s); per endpoint %s; the killed one "
          "served %d; %d re-sent after the kill" % (N, took, N / took,
                                                      [by[e] for e in endpoints], by[victim],
                                                      len(resent)), file=sys.stderr)
    tc.assertTrue(all(by[e] > 0 for e in endpoints), "load not spread: %s" % by)
    tc.assertTrue(resent, "the kill hit no job in flight: fail-over was not tested")
    tc.assertEqual(after, [], "a re-sent job was answered by the killed endpoint")


class ClusterLocal(unittest.TestCase):
    def test_three_sockets_one_daemon_killed(self):
        parent = "/sbx-pycluster-%d" % os.getpid()
        ds = start_daemons(parent)
        try:
            names = ["unix:" + d.sock for d in ds]
            with Client(sockets=[d.sock for d in ds], retry_down=0.5,
                        unavailable_timeout=30) as c:
                spread_and_kill(self, c, names, names[1], ds[1].kill)
        finally:
            for d in ds:
                d.cleanup()
            remove_parent(parent)

    def test_three_fronts_one_daemon_killed(self):
        front = os.path.join(BUILD, "sandboxd-http")
        if not os.access(front, os.X_OK):
            print("SKIP: cluster-local/test_three_fronts_one_daemon_killed: %s not built "
                  "(the HTTP front)" % front)
            self.skipTest("%s not built" % front)
        nobody = pwd.getpwnam("nobody")
        token = "pyclient-cluster-%d-token" % os.getpid()
        parent = "/sbx-pycluster-http-%d" % os.getpid()
        ds = start_daemons(parent, "--allow-gid", str(nobody.pw_gid), "--trust-uid",
                           str(nobody.pw_uid))
        fronts, urls = [], []
        tokfile = os.path.join(ds[0].dir, "tokens")
        try:
            with open(tokfile, "w") as f:
                f.write(token + " cluster\n")
            os.chmod(tokfile, 0o600)
            for d in ds:
                with socket.socket() as s:  # a free loopback port
                    s.bind(("127.0.0.1", 0))
                    port = s.getsockname()[1]
                urls.append("http://127.0.0.1:%d" % port)
                fronts.append(subprocess.Popen(
                    [front, "--listen", "127.0.0.1:%d" % port, "--socket", d.sock, "--user",
                     "nobody", "--token-file", tokfile], stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_pdeathsig))
            with Client(urls=urls, token=token, retry_down=0.5, unavailable_timeout=30) as c:
                deadline = time.monotonic() + 10
                while len(c.ping()) < 3 and time.monotonic() < deadline:
                    time.sleep(0.05)
                self.assertEqual(len(c.ping()), 3, "the fronts did not answer /v1/ping")
                spread_and_kill(self, c, urls, urls[1], ds[1].kill)
        finally:
            for p in fronts:
                p.kill()
                p.wait()
            for d in ds:
                d.cleanup()
            remove_parent(parent)


if __name__ == "__main__":
    unittest.main()
