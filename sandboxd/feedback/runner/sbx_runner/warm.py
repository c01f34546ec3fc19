"""The fork server: Python half (docs/architecture.md, "The warm path").

A fork server is this interpreter, started by its jail's init with exactly
the argv and environment a cold job's interpreter gets (`python3 -B
/sandboxd/runner.py` for test requests; `python3 -B main.py` in /work for
plain runs, where its main.py is a bootstrap that calls serve() and then
run_main()).  It knows it is a server because fd 3 is a socket (a cold
runner's fd 3 is its result pipe).  It imports the runner and the profile's
`preload` modules once, then forks one child per job, ahead of the job.
serve() returns only in such a child, once it has rehearsed a run and
libsbxwarm.so (sandboxd/jail/warm_fork.c) has applied the job's layers:
its own namespaces, mounts, uid, no capabilities, rlimits, seccomp last.  The server itself never runs job code, never reads
a job's description, and holds no descriptor in a Python object, so a child
cannot inherit one that a collected object would later close.
"""

import os
import stat
import sys

from . import script

CTL_FD = 3          # the control socket to the daemon (warm_msg.h)
LIB_FD = 4          # libsbxwarm.so, in a sealed memfd
CONFIG = "/sandboxd/job.json"   # the server's: {"kind", "preload"}


def is_server():
    try:
        return stat.S_ISSOCK(os.fstat(CTL_FD).st_mode)
    except OSError:
        return False


def _preload(cfg):
    """numexpr (which pandas imports) starts a thread pool when imported; a
    server must stay single-threaded, so it imports it with one thread, in
    an environment variable set and removed here (the kernel's copy of the
    environment, /proc/self/environ, never had it); each job then sizes the
    pool as a fresh import would (_fresh)."""
    import importlib
    os.environ["NUMEXPR_NUM_THREADS"] = "1"
    if cfg.get("kind") == "runner":
        import sysconfig
        from . import main, core, fmt_unittest, fmt_humaneval, fmt_asserts  # noqa: F401
        from . import compile_step, seeding, watchdog, frames  # noqa: F401
        # Every test request's traceback filter reads the install paths:
        # sysconfig reads and caches its data once, here, not per job.
        sysconfig.get_paths()
    # What most benchmark code imports first (HumanEval's prompts: `from
    # typing import List`); like any preloaded module, it changes nothing
    # a program sees but sys.modules (docs/architecture.md).
    import typing  # noqa: F401
    for name in cfg.get("preload", []):
        try:
            importlib.import_module(name)
        except Exception:       # not installed here: preload only what is
            pass
    del os.environ["NUMEXPR_NUM_THREADS"]


def _threads():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


def _fresh():
    """Per-job state a fresh interpreter would not share with another job:
    random is reseeded by its own at-fork hook; numpy's global generator
    is reseeded from the OS here (a test request's seed then reseeds both,
    as on the cold path)."""
    npr = sys.modules.get("numpy.random")
    if npr is not None:
        try:
            npr.seed()
        except Exception:
            pass
    # The server's exit handlers are not the job's (a fresh interpreter
    # starts with none). Without atexit imported there are none: it is not
    # imported for that (its import, the first on a job's path, copied
    # about 150 of the server's pages: 3 ms on run A's machine, docs/bench.md).
    atexit = sys.modules.get("atexit")
    if atexit is not None:
        atexit._clear()
    ne = sys.modules.get("numexpr")
    if ne is not None:
        try:
            ne.set_num_threads(ne.utils._init_num_threads())
        except Exception:
            pass


# What a job forked ahead runs before its job comes (_rehearse): the common
# shapes of a program, so the pages that compiling and running one writes
# (the compiler's and the allocator's, the objects every run touches) are
# copied from the server then, not on the job's path.
_REHEARSAL = """\
def f(n, *a, **k):
    s = [str(i) + "x" for i in range(n)]
    d = {i: s[i] for i in range(n)}
    try:
        raise ValueError(f"{n!r} {a} {k}")
    except ValueError as e:
        m = str(e)
    return sorted(d.values()), len(m), {1, 2} | {3}, (1.5 * n) // 1


class C:
    def __init__(self, v):
        self.v = v

    def __repr__(self):
        return "C(%r)" % (self.v,)


print(f(20, 1, k=2), [C(i) for i in range(5)], file=out)
"""


_REHEARSAL_JOB = (
    '{"format": "humaneval", "filename": "solution.py", "code": "def f(n):\\n'
    '    return n\\n", "tests": "def check(c):\\n    assert c(1) == 1\\n", '
    '"entry_point": "f", "seed": null, "limits": [1, 2.5, true, false]}')


def _rehearse(waiting):
    """Compiles and runs _REHEARSAL in a module of its own, as a job's run
    would, and frees what it made; it stops early once waiting() says the
    job came (when jobs come back to back, they are not kept waiting for
    it).  Nothing of it reaches the job: it imports nothing (io and types
    are every interpreter's), writes to no descriptor, and leaves no object
    behind; it is never the job's code."""
    import gc
    import io
    import types
    mod = None
    try:
        if waiting():
            return
        code = compile(_REHEARSAL, "main.py", "exec", dont_inherit=True)
        if waiting():
            return
        mod = types.ModuleType("__main__")
        mod.out = io.StringIO()
        exec(code, mod.__dict__)
        if waiting():
            return
        # A program's own steps around it (its source read from a file
        # among them): script.run's, on an empty program.
        script.rehearse()
        # What the runner does first with every test request, when it is
        # what this server serves: read its job description, parse the
        # module its tests run in. Modules already imported only.
        json, ast = sys.modules.get("json"), sys.modules.get("ast")
        if json is not None and ast is not None and not waiting():
            json.loads(_REHEARSAL_JOB)
            if not waiting():
                ast.parse(_REHEARSAL, "<rehearsal>")
            if not waiting():
                _rehearse_records()
    except BaseException:
        pass
    finally:
        if mod is not None:
            mod.__dict__.clear()
            del mod
            gc.collect()


def _rehearse_records():
    """What every test request does that needs no job of its own, when
    this server imported the runner: a candidate compiled, and its records
    built and encoded as its channel encodes them, written to /dev/null.
    No state of the runner's changes (no source is remembered, no test
    timed)."""
    pkg = __name__.partition(".")[0]
    channel = sys.modules.get(pkg + ".channel")
    records = sys.modules.get(pkg + ".records")
    step = sys.modules.get(pkg + ".compile_step")
    if channel is None or records is None or step is None:
        return
    fd = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    try:
        chan = channel.Channel(fd, "0" * records.KEY_LEN)
        _, rec = step.compile_candidate("def f(n):\n    return n\n", "solution.py")
        for r in (rec, records.plan(["check"]), records.start("check"),
                  records.result("check", records.PASSED, "", "", 0),
                  records.done()):
            chan.emit(r)
    finally:
        os.close(fd)


# The built-in jobs the calibration child runs (_calibrating): a HumanEval
# task's shape for a test-request server, a program for a plain one.
_CAL_JOB = (
    '{"format": "humaneval", "filename": "solution.py", "entry_point": "total", '
    '"code": "from typing import List\\n\\n\\ndef total(xs: List[int]) -> int:\\n'
    '    return sum(x for x in xs)\\n", '
    '"tests": "\\n\\nMETADATA = {}\\n\\n\\ndef check(candidate):\\n'
    '    assert candidate([1, 2, 3]) == 6\\n    assert candidate([]) == 0\\n"}')
_CAL_SECONDS = 5     # a calibration child still running then is killed
_CAL_MAIN = b"xs = [str(i) for i in range(20)]\nprint(len(xs), ' '.join(xs))\n"


def _calibrating(lib, runner):
    """Learns which of the server's pages a job writes after its layers:
    the first job forked ahead reports what it wrote before its job came
    (its tree, its rehearsal), never the job's own path. A child of the
    server takes that path on a built-in job: it returns True, and serve()
    returns in it as in a job (after a call through the library, as a job
    returns from warmfork_job, and _fresh), into what follows serve() for
    a job: the runner's main(), or run_main (script.run), with its output
    to /dev/null. At that job's end, where a job exits, it reports the
    pages it wrote (warmfork_learn), which every later job forked ahead
    copies with the first one's (warm_fork.c). It runs the server's code
    only, on a job of the server's own, in a process that serves nothing
    and ends there. In the server: False, once the child is reaped."""
    r, w = os.pipe()
    real_exit = os._exit
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            _cal_child(lib, w, runner, real_exit)
            return True
        except BaseException:
            real_exit(1)     # not the job's end: no report
    os.close(w)
    try:
        if _reaped_ok(pid, _CAL_SECONDS):
            lib.warmfork_calibrated(r)
    finally:
        os.close(r)
    return False


def _reaped_ok(pid, seconds):
    """Whether the child ended with status 0 within seconds; killed, and
    not, when it did not (the server must not hang on it)."""
    import time     # every interpreter's; signal is not imported for SIGKILL
    end = time.monotonic() + seconds
    while True:
        got, st = os.waitpid(pid, os.WNOHANG)
        if got:
            return os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0
        if time.monotonic() > end:
            os.kill(pid, 9)     # SIGKILL
            os.waitpid(pid, 0)
            return False
        time.sleep(0.001)


def _cal_child(lib, w, runner, real_exit):
    """The calibration child's set-up, before it returns from serve()."""
    global run_main
    # Nothing of the server's but the report's pipe: not the daemon's socket.
    os.closerange(3, w)
    os.closerange(w + 1, 1 << 20)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)

    def end(code):
        real_exit(0 if lib.warmfork_learn(w) == 0 else 1)

    os._exit = script._exit = end
    if runner:
        from . import records
        kr, kw = os.pipe()
        os.write(kw, b"0" * records.KEY_LEN)
        os.close(kw)
        job = os.memfd_create("calibration")
        os.write(job, _CAL_JOB.encode())
        os.environ.update(SBX_RUNNER_JOB="/proc/self/fd/%d" % job,
                          SBX_RUNNER_KEY_FD=str(kr), SBX_RUNNER_RESULT_FD=str(null))
    else:
        prog = os.memfd_create("calibration")
        os.write(prog, _CAL_MAIN)
        path = "/proc/self/fd/%d" % prog
        run_main = lambda: script.run(path)  # noqa: E731
    lib.warmfork_waiting()       # a call back through the library, as a job's
    _fresh()


def _die(why):
    """Ends the server; its stderr is the daemon's log."""
    try:
        os.write(2, ("sandboxd fork server %d: %s\n" % (os.getpid(), why)).encode())
    finally:
        os._exit(1)


def serve():
    import ctypes
    import gc
    import json
    # PyDLL: the GIL stays held in its calls, as warmfork_spawn calls the
    # interpreter's own fork hooks (as os.fork does around its fork).
    lib = ctypes.PyDLL("/proc/self/fd/%d" % LIB_FD)
    os.close(LIB_FD)
    with open(CONFIG, "rb") as f:
        cfg = json.loads(f.read())
    _preload(cfg)
    # A run's first steps grow what the interpreter keeps for good (its
    # tables of names among them): done here once, not in every job.
    # Without it a job's first compile() took about 0.5 ms, of a 12 us
    # compile, on run A's 2-core machine (docs/bench.md).
    _rehearse(lambda: False)
    script.remember_modules()
    # Objects made so far are never collected or moved between
    # generations: fewer pages written after each fork.
    gc.collect()
    gc.freeze()
    if _calibrating(lib, cfg.get("kind") == "runner"):
        return
    spawn, waiting, job = lib.warmfork_spawn, lib.warmfork_waiting, lib.warmfork_job
    # fd 6, the server's own description, is the C half's to read: the
    # tree its jobs are forked ahead with (warm_fork.c, load_template).
    if lib.warmfork_ready(1 if cfg.get("kind") == "runner" else 0) < 0:
        _die("cannot report ready")
    while True:
        # A server with a second thread cannot fork safely: it ends and
        # the daemon starts another (or falls back to cold jobs).
        if _threads() != 1:
            _die("%d threads: cannot fork safely" % _threads())
        # The next job's pid 1 forks the job once the daemon has put it
        # into the job's cgroup (this call returns in the server once the
        # job came and the pid 1 became its reaper); in the job it returns
        # 1 at once.
        rc = spawn()
        if rc == 1:
            # The next job, forked ahead of it: it rehearses, then waits
            # for its descriptors and takes its layers (warmfork_job). Also
            # where the pages a run writes were copied ahead already: a
            # run's first steps in a new process were still slow on the
            # 2-core machine until its own code had taken them once
            # (docs/architecture.md, "Pages copied ahead").
            _rehearse(waiting)
            job()
            _fresh()
            return
        if rc == -2:
            os._exit(0)         # the daemon closed the channel: stop
        if rc < 0:
            _die("could not start a job")


# In a plain run's child: what `python3 main.py` does with the job's
# /work/main.py (script.py); an alias, so the job's frames sit no deeper
# than under the bootstrap's one call.
run_main = script.run
