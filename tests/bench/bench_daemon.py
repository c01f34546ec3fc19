"""A sandboxd for the benchmark (its own socket, state dir and uid range),
a client that keeps one connection open, and the daemon's memory."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time


class Daemon:
    """sandboxd with `workers` workers on a fresh socket; a context manager
    that always stops it and removes its directory."""

    def __init__(self, build, workers=None, uid_base=None, cold=False):
        self.dir = tempfile.mkdtemp(prefix="sbx-bench-")
        self.sock = os.path.join(self.dir, "sock")
        args = [os.path.join(build, "sandboxd"), "--socket", self.sock,
                "--state-dir", os.path.join(self.dir, "state")]
        if workers:
            args += ["--workers", str(workers)]
        if uid_base:
            args += ["--uid-base", str(uid_base)]
        if cold:
            args += ["--cold"]
        self.log = open(os.path.join(self.dir, "log"), "wb")
        try:
            self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log)
        except OSError:     # no daemon at that path: leave no directory
            self.log.close()
            shutil.rmtree(self.dir, ignore_errors=True)
            raise
        deadline = time.monotonic() + 10
        while True:
            try:
                with Conn(self.sock) as c:
                    self.workers = c.ping()["workers"]
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.close()
                    raise RuntimeError("sandboxd did not start: " + self.log_tail())
                time.sleep(0.02)
        # The fork servers import before the first job.
        self.warm = 0
        while not cold and time.monotonic() < deadline + 50:
            with Conn(self.sock) as c:
                p = c.ping()
            self.warm, self.warm_rss_kb = p.get("warm_ready", 0), p.get("warm_rss_kb", 0)
            if self.warm >= max(p.get("warm_servers", 0), 2 * self.workers):
                break
            time.sleep(0.1)

    def log_tail(self):
        try:
            with open(os.path.join(self.dir, "log"), "rb") as f:
                return f.read()[-2000:].decode(errors="replace")
        except OSError:
            return "(no log)"

    def rss_kb(self):
        """VmRSS of the daemon, kB."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return None

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Conn:
    """One connection to the daemon, kept open: requests are JSON objects,
    answered by id (responses may come in any order)."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.f = self.s.makefile("rb")
        self.n = 0

    def send(self, req):
        self.s.sendall(json.dumps(req).encode() + b"\n")

    def recv(self):
        line = self.f.readline()
        if not line:
            raise OSError("sandboxd closed the connection")
        return json.loads(line)

    def call(self, req):
        self.n += 1
        req = dict(req, id=req.get("id", "c%d" % self.n))
        self.send(req)
        return self.recv()

    def ping(self):
        return self.call({"op": "ping"})

    def pipeline(self, reqs, window):
        """Sends reqs with at most `window` unanswered; returns the responses
        by id and the seconds it took. `busy` answers are sent again."""
        out, pending, t0 = {}, list(reqs), time.perf_counter()
        inflight, busy = {}, 0
        while pending or inflight:
            while pending and len(inflight) < window:
                r = pending.pop(0)
                inflight[r["id"]] = r
                self.send(r)
            resp = self.recv()
            rid = resp.get("id")
            req = inflight.pop(rid)
            if (resp.get("error") or {}).get("code") == "busy":
                busy += 1
                pending.insert(0, req)
                time.sleep(0.01)
                continue
            out[rid] = resp
        return out, time.perf_counter() - t0, busy

    def close(self):
        self.f.close()
        self.s.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
