"""Shared by the Python client's suites: real daemons started as the C tests
start them (tests/helpers/daemon.c: a private socket and state dir in a
temporary directory, a uid range of their own, $SBX_TEST_DAEMON_ARGS
appended, SIGKILL when this process dies), and the package imported from
the source tree."""
import ctypes
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "client", "python"))
BUILD = os.environ.get("SBX_BUILD") or os.path.join(ROOT, "build")
DATASETS = os.path.join(ROOT, "..", "shared", "datasets")
_count = 0


def _pdeathsig():
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def uid_base(k):
    """512 uids (two per slot at 256 workers) per daemon of this process, in
    a region the C tests (200000 + pid % 100000 * 512) never use."""
    return 100000000 + (os.getpid() % 100000) * 8192 + k * 512


class Daemon:
    def __init__(self, *extra, workers=2, dir_mode=0o700):
        """dir_mode 0o711 lets an unprivileged peer (a front) reach the socket."""
        global _count
        self.k = _count
        _count += 1
        base = os.environ.get("SBX_TEST_TMPDIR") or "/tmp"
        self.dir = tempfile.mkdtemp(prefix="sbxpy.", dir=base)
        os.chmod(self.dir, dir_mode)
        self.sock = os.path.join(self.dir, "sock")
        self.log = os.path.join(self.dir, "log")
        self.args = [os.path.join(BUILD, "sandboxd"), "--socket", self.sock, "--state-dir",
                     os.path.join(self.dir, "state"), "--uid-base", str(uid_base(self.k)),
                     "--workers", str(workers)] + [str(a) for a in extra]
        self.args += shlex.split(os.environ.get("SBX_TEST_DAEMON_ARGS", ""))
        self.proc = None
        self.start()

    def start(self):
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=log, preexec_fn=_pdeathsig)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("sandboxd exited (%s): %s" % (self.proc.returncode,
                                                                  self.log_tail()))
            if self.ping():
                return
            time.sleep(0.01)
        self.kill()
        raise RuntimeError("sandboxd did not answer a ping: " + self.log_tail())

    def ping(self):
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(1)
                s.connect(self.sock)
                s.sendall(b'{"id":"r","op":"ping"}\n')
                return "version" in json.loads(s.makefile("rb").readline())
        except (OSError, ValueError):
            return False

    def log_tail(self, n=800):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return ""

    @property
    def pid(self):
        return self.proc.pid

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self, timeout=10):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()

    def cleanup(self):
        """Stops it; a daemon killed mid-run is started again first, so its
        start cleans up what the killed run left (jobs, cgroups), then stopped."""
        if self.proc and self.proc.poll() is not None and self.proc.returncode < 0:
            try:
                self.start()
            except RuntimeError:
                pass
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
