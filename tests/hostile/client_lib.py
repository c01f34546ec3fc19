# Shared code of the hostile-client scripts (tests/hostile/client_*.py, run
# by tests/integration/test_hostile_clients.c): a module, not a script.
#
#   import client_lib as L
#   s = L.connect()                 # a socket to $SBX_SOCKET
#   L.send(s, {"id": "a", "code": "print(1)"})
#   r = L.read_json(s, timeout=30)  # one response line, parsed
#   L.ping()                        # the daemon answers {"op":"ping"}
#   s = L.connect_as(190011)        # as another uid (SO_PEERCRED); needs root
#   L.rss_kb(), L.hwm_kb(), L.cpu_s(), L.nfds()   # the daemon, from /proc
#   chk = L.Checks()
#   chk.bound("daemon CPU seconds", used, 2.0)    # used <= 2.0
#   chk.bound("RSS growth MiB", mib, 64, memory=True)  # not for an ASan daemon
#   chk.expect(ok, "every response arrived")
#   chk.finish()                    # exit 0 when all held, 1 otherwise
#
# Control mode (SBX_HOSTILE_CONTROL=1): every check is made against a
# condition known to be bad: a bound's threshold is inverted (the value
# must then be *above* it, so a held attack fails it) and an expectation
# is negated. A script whose checks all held must therefore exit 1.
import ctypes
import json
import os
import socket
import sys
import time

SOCK = os.environ.get("SBX_SOCKET", "/run/sandboxd.sock")
PID = int(os.environ.get("SBX_DAEMON_PID", "0") or 0)
UID_BASE = int(os.environ.get("SBX_UID_BASE", "0") or 0)
WORKERS = int(os.environ.get("SBX_WORKERS", "1") or 1)
CONTROL = os.environ.get("SBX_HOSTILE_CONTROL", "") not in ("", "0")
# An AddressSanitizer daemon: its RSS holds shadow memory and a quarantine
# of freed blocks, so memory bounds are reported, not checked.
SANITIZED = os.environ.get("SBX_DAEMON_SANITIZED", "") not in ("", "0")
CLK_TCK = os.sysconf("SC_CLK_TCK")
_libc = ctypes.CDLL(None, use_errno=True)


def log(*a):
    print(*a, flush=True)


def skip(reason):
    """Exit 77: the attack cannot be made on this machine (reason printed last)."""
    print(reason, flush=True)
    sys.exit(77)


def connect(path=None, timeout=30.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path or SOCK)
    return s


def connect_patiently(path=None, wait=2.0):
    """A connection, waiting up to `wait` s for room in the listen backlog
    (a non-blocking AF_UNIX connect fails with EAGAIN while it is full);
    None when the daemon did not make room."""
    end = time.monotonic() + wait
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect(path or SOCK)
            return s
        except BlockingIOError:
            s.close()
            if time.monotonic() > end:
                return None
            time.sleep(0.02)


def connect_as(uid, path=None):
    """A connection whose SO_PEERCRED is uid (needs root): the effective uid
    changes for the connect() only; the file-system uid stays root so the
    socket's directory (0700 in tests) is still reachable. A blocking socket
    without a timeout; OSError when the connect (or setfsuid) fails."""
    os.seteuid(uid)
    try:
        _libc.setfsuid(0)
        if _libc.setfsuid(0) != 0:  # returns the previous fsuid: 0 if it took
            raise OSError("setfsuid(0) did not take")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path or SOCK)
        return s
    finally:
        os.seteuid(0)


def send(s, obj):
    """Sends one request line (a dict is encoded as JSON, bytes go as they are)."""
    data = obj if isinstance(obj, bytes) else json.dumps(obj).encode() + b"\n"
    s.sendall(data)


class Reader:
    """Splits a connection's bytes into lines; keeps what follows a line."""

    def __init__(self, s):
        self.s = s
        self.buf = bytearray()

    def line(self, timeout=60.0, limit=None):
        """One line without its newline, or None on EOF/timeout."""
        end = time.monotonic() + timeout
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                out = bytes(self.buf[:i])
                del self.buf[: i + 1]
                return out
            if limit is not None and len(self.buf) > limit:
                return None
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.s.settimeout(left)
            try:
                chunk = self.s.recv(1 << 20)
            except (socket.timeout, OSError):
                return None
            if not chunk:
                return None
            self.buf += chunk

    def json(self, timeout=60.0):
        ln = self.line(timeout)
        if ln is None:
            return None
        try:
            return json.loads(ln)
        except ValueError:
            return {"unparsable": len(ln)}


def read_json(s, timeout=60.0):
    """One response from a fresh connection (no pipelining on s)."""
    return Reader(s).json(timeout)


def call(obj, timeout=60.0):
    """Connects, sends one request, returns its parsed response (or None)."""
    try:
        with connect(timeout=timeout) as s:
            send(s, obj)
            return read_json(s, timeout)
    except OSError as e:
        return {"oserror": str(e)}


def ping(timeout=10.0):
    r = call({"id": "ping", "op": "ping"}, timeout)
    return isinstance(r, dict) and "version" in r


def _status(key, pid=None):
    with open("/proc/%d/status" % (pid or PID)) as f:
        for ln in f:
            if ln.startswith(key + ":"):
                return int(ln.split()[1])
    return 0


def rss_kb(pid=None):
    return _status("VmRSS", pid)


def hwm_kb(pid=None):
    """The daemon's peak RSS so far (VmHWM)."""
    return _status("VmHWM", pid)


def cpu_s(pid=None):
    """utime + stime of the daemon (all its threads), in seconds."""
    with open("/proc/%d/stat" % (pid or PID)) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def nfds(pid=None):
    return len(os.listdir("/proc/%d/fd" % (pid or PID)))


def raise_nofile(n):
    """This process's soft RLIMIT_NOFILE to n (at most the hard limit)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = n if hard == resource.RLIM_INFINITY else min(n, hard)
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Checks:
    def __init__(self):
        self.failed = []
        if CONTROL:
            log("control mode: every check is made against a known-bad condition")

    def expect(self, ok, what):
        ok = bool(ok)
        if CONTROL:
            ok = not ok
        log("%s: %s" % ("held" if ok else "NOT HELD", what + (" (negated)" if CONTROL else "")))
        if not ok:
            self.failed.append(what)

    def bound(self, what, value, limit, memory=False):
        """value <= limit (control mode: value > limit, the threshold inverted).
        memory: a figure of the daemon's memory (not checked for an ASan daemon)."""
        if memory and SANITIZED:
            log("not checked (ASan daemon): %s = %s (limit %s)" % (what, value, limit))
            return
        ok = value <= limit
        if CONTROL:
            ok = value > limit
        rel = ">" if CONTROL else "<="
        log("%s: %s = %s (must be %s %s)" % ("held" if ok else "NOT HELD", what, value, rel, limit))
        if not ok:
            self.failed.append("%s = %s, limit %s" % (what, value, limit))

    def finish(self):
        if self.failed:
            log("attack succeeded: " + "; ".join(self.failed))
            sys.exit(1)
        log("attack held")
        sys.exit(0)
