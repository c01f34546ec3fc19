"""The grader of isolation "process" (humaneval and asserts): the tests run
here, the candidate's code in another process under another uid
(candidate.py), reached through a stream socket (fd 5) that carries only
data (wire.py).  No candidate code runs in this process, so the key, the
result channel, `check`, the assertions and sys.modules are out of its
reach; a candidate that crashes, exits, hangs or lies only spoils its own
answers, which the tests compare here.

Names: the candidate's module is executed there; every top-level name it
defines becomes, in the tests' namespace here,
  - a CandidateFunction (a proxy that calls it there) when it is callable,
  - the same standard-library module, imported here, when it is a module
    bound under its own name (_module_ok),
  - a copy, when it is data the wire carries;
and the tests' own definitions then shadow those names (the reference
harnesses run the solution first and the tests after it, in one module).
Names of builtins are never taken from the candidate: the tests' `len` or
`abs` is always the real one.
So a helper lives on the side whose text defines it: HumanEval's poly or
encode_cyclic are in the prompt, part of `code`, and run in the candidate
(as in the reference harness, where the completion can redefine them); a
client that wants one trusted puts its definition into `tests` (MBPP's
test_setup_code belongs there).  Arguments are copies: a candidate that
mutates an argument in place does not change the grader's object."""

import builtins
import importlib
import os
import sys
import types

from . import fmt_asserts, fmt_humaneval, records, wire
from .compile_step import remember_source
from .job import HarnessError
from .seeding import NumpySeeder
from .text import summarize

TESTS_LABEL = "<tests>"
_UNSAFE_PATHS = ("/tmp", "/var/tmp", "/dev/shm", "/work")


class CandidateError(Exception):
    """What the candidate process did cannot be shown as its own exception."""
    __module__ = "__main__"


class _ModuleError(Exception):
    def __init__(self, message, tb):
        super().__init__(message)
        self.message, self.tb = message, tb


class CandidateFunction:
    """Calls the candidate's `name` in its process; arguments and the result
    cross as data."""
    __slots__ = ("_peer", "__name__")

    def __init__(self, peer, name):
        self._peer = peer
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        return self._peer.call(self.__name__, args, kwargs)

    def __repr__(self):
        return "<candidate function %s>" % self.__name__


def _text(v, n):
    if type(v) is not str:
        raise CandidateError("the candidate broke the protocol (a message is not text)")
    return v if len(v) <= n else v[:n] + "..."


class Peer:
    def __init__(self, fd, watchdog):
        self.conn = wire.Conn(fd, waiting=watchdog.peer_wait, busy=watchdog.busy)
        self.last_id = 0
        self.test_no = 0

    def _gone(self, e):
        return CandidateError("the candidate process is gone (%s)" % e)

    def load(self, code, filename, seed, timeout_ms):
        try:
            self.conn.send(("load", code, filename, seed, timeout_ms))
            msg = self.conn.recv()
        except wire.PeerGone as e:
            raise self._gone(e) from None
        except wire.WireError as e:
            raise CandidateError("the candidate sent a malformed value: %s" % e) from None
        if type(msg) is tuple and len(msg) == 3 and msg[0] == "module_error":
            raise _ModuleError(_text(msg[1], records.MESSAGE_CAP),
                               _text(msg[2], records.TRACEBACK_CAP))
        if not (type(msg) is tuple and len(msg) == 2 and msg[0] == "loaded" and
                type(msg[1]) is list):
            raise CandidateError("the candidate broke the protocol (no names)")
        out = []
        for item in msg[1]:
            if (type(item) is tuple and len(item) == 3 and type(item[0]) is str and
                    item[0].isidentifier() and not item[0].startswith("__") and
                    item[1] in ("call", "module", "value")):
                out.append(item)
        return out

    def call(self, name, args, kwargs):
        if self.conn.broken:
            raise self._gone(self.conn.broken)
        self.last_id += 1
        cid = self.last_id
        try:
            self.conn.send(("call", cid, self.test_no, name, args, kwargs))
        except wire.WireError as e:
            raise CandidateError("an argument cannot be passed to the candidate: %s" % e) \
                from None
        except wire.PeerGone as e:
            raise self._gone(e) from None
        while True:
            try:
                msg = self.conn.recv()
            except wire.PeerGone as e:
                raise self._gone(e) from None
            except wire.WireError as e:
                raise CandidateError("the candidate sent a malformed value: %s" % e) \
                    from None
            if not (type(msg) is tuple and len(msg) >= 2 and type(msg[1]) is int):
                raise CandidateError("the candidate broke the protocol")
            if msg[1] < cid:
                continue         # the answer to a call that already timed out
            if msg[1] != cid:
                raise CandidateError("the candidate broke the protocol (call id)")
            break
        kind = msg[0]
        if kind == "return" and len(msg) == 3:
            return msg[2]
        if kind == "unsupported" and len(msg) == 3:
            raise CandidateError(_text(msg[2], records.MESSAGE_CAP))
        if kind == "raise" and len(msg) == 6 and type(msg[2]) is list:
            raise _rebuild(msg[2], _text(msg[3], 200), _text(msg[4], 2000),
                           _text(msg[5], 8000))
        raise CandidateError("the candidate broke the protocol")


def _rebuild(names, type_name, message, tb):
    """The candidate's exception as the nearest builtin type the tests can
    catch (a candidate-defined ValueError subclass becomes ValueError); any
    other (SystemExit, KeyboardInterrupt, ...) a CandidateError."""
    exc = None
    for n in names:
        cls = getattr(builtins, n, None) if type(n) is str else None
        if isinstance(cls, type) and issubclass(cls, Exception):
            try:
                exc = cls(message)
                break
            except Exception:
                continue
    if exc is None:
        exc = CandidateError("%s: %s" % (type_name, message) if message else type_name)
    exc.add_note("(raised in the candidate process)\n" + tb)
    return exc


def _sanitize_path():
    """The grader imports only from the read-only root: nothing from the
    work dir or a shared writable one, where the candidate can put files."""
    cwd = os.getcwd()
    keep = []
    for p in sys.path:
        ap = os.path.abspath(p) if p else cwd
        if not p or not os.path.isabs(p) or ap == cwd or \
                any(ap == u or ap.startswith(u + "/") for u in _UNSAFE_PATHS):
            continue
        keep.append(p)
    sys.path[:] = keep


# Standard-library modules whose import does something (opens a browser,
# prints, starts a program): never imported on the candidate's word.
_NO_IMPORT = {"antigravity", "this", "__hello__", "__phello__", "idlelib", "turtledemo",
              "tkinter", "turtle", "ensurepip", "venv", "webbrowser", "test", "pydoc",
              "lib2to3", "__main__"}


def _module_ok(name, payload, stdlib):
    """A module binding the grader recreates: a standard-library module
    bound under its own name (`import math`, `import os.path` binds os,
    `import xml.etree.ElementTree as ElementTree`), nothing else, so the
    candidate cannot point a name the tests use at another module."""
    if type(payload) is not str or not all(p.isidentifier() for p in payload.split(".")):
        return False
    top = payload.partition(".")[0]
    return top in stdlib and top not in _NO_IMPORT and \
        name in (top, payload.rpartition(".")[2])


def _install(ns, peer, names):
    """The candidate's names in the tests' namespace, except builtins' names:
    `len` or `isinstance` in the tests stay the grader's own, whatever the
    candidate defines under those names."""
    stdlib = getattr(sys, "stdlib_module_names", ())
    for name, kind, payload in names:
        if name in builtins.__dict__:
            continue
        if kind == "call":
            ns[name] = CandidateFunction(peer, name)
        elif kind == "module":
            if _module_ok(name, payload, stdlib):
                try:
                    ns[name] = importlib.import_module(payload)
                except Exception:
                    pass
        else:
            ns[name] = payload


def run(runner, form, code):
    """One job in isolation "process", after the compile record."""
    job = runner.job
    fmt = job["format"]
    if runner.peer_fd is None:
        raise HarnessError("isolation process: no candidate process (fd 5)")
    _sanitize_path()
    if form is fmt_humaneval:
        tests_src, tests_code, driver = fmt_humaneval.prepare_isolated(runner, TESTS_LABEL)
        compiled = [("check", driver)]
    elif form is fmt_asserts:
        tests_src, tests_code = "", None
        _, _, compiled = fmt_asserts.prepare(runner, code, None)
    else:
        raise HarnessError("isolation process is only for call-based formats "
                           "(humaneval, asserts)")
    runner.emit(records.plan(runner.plan))
    peer = Peer(runner.peer_fd, runner.watchdog)
    try:
        names = peer.load(code, runner.filename, runner.seed,
                          job.get("test_timeout_ms"))
    except _ModuleError as e:
        runner.emit(records.module_error(e.message, e.tb))
        return
    except CandidateError as e:
        runner.emit(records.module_error(summarize(e), summarize(e)))
        return
    if runner.seed is not None:          # the tests' own numpy, as in process
        sys.meta_path.insert(0, NumpySeeder(runner.seed))
    module = types.ModuleType("__test__")
    module.__file__ = TESTS_LABEL
    sys.modules["__test__"] = module
    remember_source(TESTS_LABEL, tests_src)
    _install(module.__dict__, peer, names)
    runner.reseed()
    if tests_code is not None:
        try:
            exec(tests_code, module.__dict__)
        except BaseException as e:
            runner.emit(records.module_error(summarize(e), runner.frames.format_exc(e)))
            return
    if form is fmt_asserts:
        tests = fmt_asserts.callables(module, compiled)
    else:
        tests = [(name, lambda c=code_obj: exec(c, module.__dict__))
                 for name, code_obj in compiled]
    for name, fn in tests:
        peer.test_no += 1
        runner.run_callable(name, fn)
