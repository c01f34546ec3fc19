"""Single jobs end to end (sections 1 and 2) and the trivial job's
throughput (section 5): bare python3, bubblewrap, `sbx run` and a kept-open
connection, interleaved round by round so that load from elsewhere touches
every method alike; for throughput also an unsandboxed fork server
(fork_floor.py), the floor of any design that forks a process per job."""
import os
import random
import shutil
import subprocess
import threading
import time

from bench_daemon import Conn

PY = "/usr/bin/python3"
METHODS = ("bare", "bwrap", "sbx_run", "conn")
# Between two runs of sections 1 and 2: time for the daemon to prepare its
# slots' next jobs (a job that comes while one is prepared ran 1.6 ms slower
# on run A's kind of machine, whose page faults do not run in parallel).
SETTLE_S = 0.05


def bwrap_cmd(path):
    """bubblewrap with every namespace unshared, a read-only /usr and the
    program bound in: a common minimal sandbox for the same run."""
    bw = shutil.which("bwrap")
    if not bw:
        return None
    return [bw, "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
            "--tmpfs", "/tmp", "--ro-bind", path, "/main.py", "--unshare-all",
            "--die-with-parent", "--new-session", PY, "/main.py"]


def _check(rc, what):
    if rc != 0:
        raise RuntimeError("%s exited %d" % (what, rc))


class SingleJob:
    """One program run by each method; run(method) returns milliseconds."""

    def __init__(self, build, daemon, tmp, name, code, limits=None):
        self.name, self.code, self.limits = name, code, limits or {}
        self.path = os.path.join(tmp, name + ".py")
        with open(self.path, "w") as f:
            f.write(code)
        self.bwrap = bwrap_cmd(self.path)
        self.sbx = [os.path.join(build, "sbx"), "--socket", daemon.sock, "run"]
        for k, flag in (("memory_mb", "--memory"), ("pids", "--pids")):
            if k in self.limits:
                self.sbx += [flag, str(self.limits[k])]
        self.sbx.append(self.path)
        self.conn = Conn(daemon.sock)
        self.timings = []   # the daemon's phases of each kept-open run

    def methods(self):
        return [m for m in METHODS if m != "bwrap" or self.bwrap]

    def run(self, method):
        t = time.perf_counter()
        if method == "bare":
            _check(subprocess.run([PY, self.path]).returncode, "python3")
        elif method == "bwrap":
            _check(subprocess.run(self.bwrap).returncode, "bwrap")
        elif method == "sbx_run":
            out = subprocess.run(self.sbx, stdout=subprocess.PIPE).stdout
            if b'"verdict":"pass"' not in out.replace(b" ", b""):
                raise RuntimeError("sbx run: " + out[:500].decode(errors="replace"))
        else:
            req = {"code": self.code, "timing": True}
            if self.limits:
                req["limits"] = self.limits
            r = self.conn.call(req)
            if r.get("verdict") != "pass":
                raise RuntimeError("sandboxd: %s" % r)
            self.timings.append(r.get("timing") or {})
        return (time.perf_counter() - t) * 1000

    def close(self):
        self.conn.close()


def interleaved(job, rounds):
    """ms per method per round, in an order shuffled every round (seeded,
    so runs compare), each run SETTLE_S after the one before. A rotation
    kept the methods' cyclic order: the kept-open connection came right
    after `sbx run` in 3 rounds of 4, while the daemon prepared its next
    job, and `sbx run` after bubblewrap's 40 ms, when it was ready. These
    sections measure one job from an idle machine, as a bare cold start
    is; jobs back to back are sections 3 and 5."""
    ms = {m: [] for m in job.methods()}
    order = list(ms)
    for m in order:          # warm the page cache and the daemon once
        job.run(m)
    job.timings.clear()
    rng = random.Random(11)
    for _ in range(rounds):
        rng.shuffle(order)
        for m in order:
            time.sleep(SETTLE_S)
            ms[m].append(job.run(m))
    return ms


def cpu_ticks():
    """(busy, idle) clock ticks of the whole machine so far (/proc/stat):
    busy is user, nice, system, irq and softirq; idle includes iowait.
    Steal (another guest's time on this host) is in neither."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:8]]
    return v[0] + v[1] + v[2] + v[5] + v[6], v[3] + v[4]


def throughput(build, daemon, n, path_code):
    """Trivial jobs per second with `daemon.workers` at a time: bare python3
    processes, an unsandboxed fork server per worker thread, and kept-open
    connections to sandboxd, one per worker thread. For each, (jobs/s,
    machine CPU ms per job, idle CPU ms per job), from the machine's counters
    over the run: every process counts, the daemon, the jobs, the fork
    servers, the kernel's workers and this client alike."""
    path, code = path_code
    w = daemon.workers
    tick_ms = 1000.0 / os.sysconf("SC_CLK_TCK")

    def par(fn):
        per = [n // w + (1 if i < n % w else 0) for i in range(w)]
        errors = []

        def loop(i):
            try:
                fn(i, per[i])
            except Exception as e:   # reported, never hidden
                errors.append(e)
        busy0, idle0 = cpu_ticks()
        t = time.perf_counter()
        ths = [threading.Thread(target=loop, args=(i,)) for i in range(w)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        secs = time.perf_counter() - t
        busy1, idle1 = cpu_ticks()
        if errors:
            raise errors[0]
        return (n / secs, (busy1 - busy0) * tick_ms / n, (idle1 - idle0) * tick_ms / n)

    def bare(_, k):
        for _ in range(k):
            _check(subprocess.run([PY, path]).returncode, "python3")

    # Started, and past their imports, before the clock starts, as the
    # daemon's fork servers are.
    floor = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fork_floor.py")
    servers = [subprocess.Popen([PY, floor, path], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, bufsize=0) for _ in range(w)]

    def forked(i, k):
        s = servers[i]
        for _ in range(k):
            s.stdin.write(b"x")
            if s.stdout.read(1) != b"\0":
                raise RuntimeError("fork floor: the job failed")

    def sbx(_, k):
        with Conn(daemon.sock) as c:
            for _ in range(k):
                r = c.call({"code": code})
                if r.get("verdict") != "pass":
                    raise RuntimeError("sandboxd: %s" % r)
    try:
        for i in range(w):
            forked(i, 1)   # past its start
        rates = par(bare), par(forked), par(sbx)
    finally:
        for s in servers:
            s.stdin.close()
            s.wait()
            s.stdout.close()
    return rates
