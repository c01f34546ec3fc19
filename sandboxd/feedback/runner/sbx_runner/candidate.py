"""The candidate process of isolation "process": `runner.py candidate`,
started by the job's init beside the grader under another uid, with one end
of a stream socket as fd 3 and no result channel or key.  It executes the
candidate's code and answers the grader's calls; everything it sends is
data (wire.py).  Nothing here is trusted by the grader: the candidate may
replace any of it, and then only breaks its own answers.

Messages (each a wire value, a tuple whose first item names it):
  grader -> candidate
    ("load", code, filename, seed, timeout_ms)
    ("call", id, test_no, name, args_tuple, kwargs_dict)
  candidate -> grader
    ("loaded", [(name, kind, payload)])    kind "call" (payload None),
                                           "module" (its name), "value"
    ("module_error", message, traceback)
    ("return", id, value)
    ("raise", id, [builtin exception names in the MRO], type name,
              message, traceback)
    ("unsupported", id, message)           the value cannot be carried
"""

import builtins
import fcntl
import os
import signal
import sys
import time
import types

from . import frames, wire
from .channel import PRIVATE_FD_MIN, env_fd, fatal, flush_std, shadow_fd
from .seeding import NumpySeeder, reseed
from .text import safe_str, summarize

MODULE_NAME = "__test__"
GRACE_S = 0.2           # the grader's watchdog is the authority; this only
REARM_S = 0.1           # frees the candidate for the next test


class CallTimeout(BaseException):
    __module__ = "__main__"


def _builtin_names(exc_type):
    out = []
    for t in getattr(exc_type, "__mro__", ()):
        if getattr(builtins, getattr(t, "__name__", ""), None) is t:
            out.append(t.__name__)
    return out


def _cap(s, n):
    return s if len(s) <= n else s[:n] + "..."


class Candidate:
    def __init__(self, conn):
        self.conn = conn
        self.module = None
        self.frames = None
        self.seed = None
        self.timeout_s = None
        self.test_no = None
        self.deadline = None

    def _on_alarm(self, signum, frame):
        raise CallTimeout("the call exceeded the test's time limit")

    def load(self, code, filename, seed, timeout_ms):
        self.seed = seed
        self.timeout_s = timeout_ms / 1000.0 if timeout_ms else None
        self.frames = frames.Frames(filename)
        if seed is not None:
            sys.meta_path.insert(0, NumpySeeder(seed))
        mod = types.ModuleType(MODULE_NAME)
        mod.__file__ = filename
        sys.modules[MODULE_NAME] = mod
        import linecache
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        sys.argv = [filename]
        if sys.path and os.path.abspath(frames.ROOT) == os.path.abspath(sys.path[0] or "."):
            sys.path[0] = os.getcwd()
        reseed(seed)
        self.module = mod
        try:
            exec(compile(code, filename, "exec", dont_inherit=True), mod.__dict__)
        except BaseException as e:
            flush_std()
            return ("module_error", summarize(e), self.frames.format_exc(e))
        flush_std()
        names = []
        for k, v in list(mod.__dict__.items()):
            if type(k) is not str or k.startswith("__"):
                continue
            if isinstance(v, types.ModuleType):
                mname = getattr(v, "__name__", None)
                if type(mname) is str:
                    names.append((k, "module", mname))
            elif callable(v):
                names.append((k, "call", None))
            else:
                try:
                    wire.encode(v, 1 << 16)
                except wire.WireError:
                    continue
                names.append((k, "value", v))
        return ("loaded", names)

    def _arm(self, test_no):
        if self.timeout_s is None:
            return
        now = time.monotonic()
        if test_no != self.test_no:
            self.deadline = now + self.timeout_s + GRACE_S
        left = max(self.deadline - now, 0.001)
        signal.signal(signal.SIGALRM, self._on_alarm)
        signal.setitimer(signal.ITIMER_REAL, left, REARM_S)

    def call(self, cid, test_no, name, args, kwargs):
        if test_no != self.test_no:
            reseed(self.seed)
        self._arm(test_no)
        self.test_no = test_no
        try:
            fn = self.module.__dict__[name]
            value = fn(*args, **kwargs)
            signal.setitimer(signal.ITIMER_REAL, 0, 0)
        except BaseException as e:
            signal.setitimer(signal.ITIMER_REAL, 0, 0)
            flush_std()
            t = type(e)
            return ("raise", cid, _builtin_names(t), wire._type_name(t),
                    _cap(safe_str(e), 2000), _cap(self.frames.format_exc(e), 8000))
        flush_std()
        return ("return", cid, value)


def candidate_main():
    fd = env_fd("SBX_CANDIDATE_FD", 3)
    try:
        own = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, PRIVATE_FD_MIN)
    except OSError as e:
        fatal("no grader connection: %s" % e)
    shadow_fd(fd)
    os.environ.pop("SBX_CANDIDATE_FD", None)
    conn = wire.Conn(own)
    cand = Candidate(conn)
    try:
        while True:
            msg = conn.recv()
            if type(msg) is not tuple or not msg:
                break
            if msg[0] == "load":
                reply = cand.load(*msg[1:])
            elif msg[0] == "call":
                reply = cand.call(*msg[1:])
            else:
                break
            try:
                conn.send(reply)     # encoded whole before any byte is written
            except wire.WireError as e:
                conn.send(("unsupported", reply[1], "the candidate returned a value "
                           "the grader cannot receive: %s" % e))
    except (wire.PeerGone, wire.WireError):
        pass
    flush_std()
    os._exit(0)
