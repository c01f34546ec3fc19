"""A real sandboxd and a real sandboxd-http in front of it, for the HTTP
tests (tests/http/). Run as root: the daemon is root, and the front is
started as root with --user nobody, the way a unit starts it, so it drops
to an unprivileged uid that reaches the socket through its group.

Environment: SBX_BUILD (default build), SBX_HTTP_BIN (the front to test,
default $SBX_BUILD/sandboxd-http: the ASan tier points it at its own build),
SBX_DATASETS (default ../shared/datasets from the tree's root)."""
import sys

sys.dont_write_bytecode = True  # noqa: E402

import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import secrets  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, os.environ.get("SBX_BUILD", "build"))
FRONT = os.environ.get("SBX_HTTP_BIN", os.path.join(BUILD, "sandboxd-http"))
DATASETS = os.environ.get("SBX_DATASETS", os.path.join(ROOT, "..", "shared", "datasets"))
FRONT_USER = "nobody"
# An ASan front (make check-http's last run): its memory holds shadow and a
# quarantine of freed blocks, so memory bounds are not checked against it.
FRONT_SANITIZED = "SBX_HTTP_BIN" in os.environ and "ASAN_OPTIONS" in os.environ


def front_uid():
    import pwd
    return pwd.getpwnam(FRONT_USER).pw_uid, pwd.getpwnam(FRONT_USER).pw_gid


class FakeDaemon:
    """A Unix socket that answers like a daemon would not: each request line
    (a dict) gets the lines answer(request) returns (dicts, in order), so
    that the front's handling of answers the real daemon sends only under
    load can be tested exactly. A ping is answered as a ping."""

    def __init__(self, path, answer):
        self.answer = answer
        self.srv = socket.socket(socket.AF_UNIX)
        self.srv.bind(path)
        os.chmod(path, 0o777)
        self.srv.listen(64)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.srv.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _serve(self, c):
        with c, c.makefile("rb") as f:
            for line in f:
                req = json.loads(line)
                if req.get("op") == "ping":
                    out = [{"id": req.get("id"), "version": "fake", "workers": 1}]
                else:
                    out = self.answer(req)
                try:
                    c.sendall(b"".join(json.dumps(o).encode() + b"\n" for o in out))
                except OSError:
                    return

    def close(self):
        self.srv.close()


class Stack:
    """sandboxd + sandboxd-http. daemon_args/front_args: extra flags; fake:
    an answer function for a FakeDaemon in place of sandboxd."""

    def __init__(self, daemon_args=(), front_args=(), tokens=None, workers=2, fake=None):
        self.dir = tempfile.mkdtemp(prefix="sbx-http.")
        os.chmod(self.dir, 0o755)
        self.sock = os.path.join(self.dir, "sock")
        uid, gid = front_uid()
        # the scheme of tests/helpers/daemon.c: unique to this process
        base = 200000 + (os.getpid() % 100000) * 512
        self.daemon_log = open(os.path.join(self.dir, "daemon.log"), "w+")
        self.fake = FakeDaemon(self.sock, fake) if fake else None
        self.daemon = None if fake else subprocess.Popen(
            [os.path.join(BUILD, "sandboxd"), "--socket", self.sock, "--state-dir",
             os.path.join(self.dir, "state"), "--workers", str(workers), "--uid-base",
             str(base), "--allow-gid", str(gid), "--trust-uid", str(uid)] + list(daemon_args),
            stdout=self.daemon_log, stderr=subprocess.STDOUT)
        self._wait_socket()
        self.tokens = tokens or []
        args = [FRONT, "--listen", "127.0.0.1:0", "--socket", self.sock, "--user", FRONT_USER]
        if self.tokens:
            tf = os.path.join(self.dir, "tokens")
            with open(tf, "w") as f:
                f.write("# token tenant\n")
                for tok, ten in self.tokens:
                    f.write("%s %s\n" % (tok, ten or ""))
            os.chmod(tf, 0o600)
            args += ["--token-file", tf]
        self.front_log_path = os.path.join(self.dir, "front.log")
        self.front_log = open(self.front_log_path, "w+")
        self.front = subprocess.Popen(args + list(front_args), stdout=self.front_log,
                                      stderr=subprocess.STDOUT)
        self.port = self._wait_port()
        self.url = "http://127.0.0.1:%d" % self.port

    def _wait_socket(self):
        for _ in range(200):
            if os.path.exists(self.sock):
                try:
                    s = socket.socket(socket.AF_UNIX)
                    s.connect(self.sock)
                    s.sendall(b'{"id":"p","op":"ping"}\n')
                    if s.recv(4096):
                        s.close()
                        return
                except OSError:
                    pass
            if self.daemon and self.daemon.poll() is not None:
                break
            time.sleep(0.05)
        self.close()
        raise RuntimeError("sandboxd did not start: " + self.daemon_text())

    def _wait_port(self):
        for _ in range(200):
            m = re.search(r"listening on \S+ port (\d+)", self.front_text())
            if m:
                return int(m.group(1))
            if self.front.poll() is not None:
                break
            time.sleep(0.05)
        text = self.front_text()
        self.close()
        raise RuntimeError("sandboxd-http did not start: " + text)

    def daemon_text(self):
        self.daemon_log.flush()
        with open(self.daemon_log.name, errors="replace") as f:
            return f.read()

    def front_text(self):
        with open(self.front_log_path, errors="replace") as f:
            return f.read()

    def front_alive(self):
        return self.front.poll() is None

    def close(self):
        """Stops both; returns what went wrong with the front (its exit
        status, a sanitizer report in its log), or "" when nothing did."""
        bad = ""
        for p in (getattr(self, "front", None), self.daemon):
            if p and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        front = getattr(self, "front", None)
        if self.fake:
            self.fake.close()
        if front is not None:
            text = self.front_text()
            if front.returncode != 0:
                bad = "sandboxd-http exited with %s" % front.returncode
            if "Sanitizer" in text or "runtime error:" in text:
                bad += "; its log:\n" + text[-4000:]
        for f in (getattr(self, "front_log", None), self.daemon_log):
            if f:
                f.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        return bad


def raw_http(port, data, timeout=10, read=True):
    """Sends raw bytes on a fresh connection; returns what came back before
    the server closed it or the timeout (b"" on neither)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
        if not read:
            return b""
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        s.close()


def new_token():
    return secrets.token_hex(16)


def humaneval():
    import gzip
    path = os.path.join(DATASETS, "HumanEval.jsonl.gz")
    if not os.path.exists(path):
        return None
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]
