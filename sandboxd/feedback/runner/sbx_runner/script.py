"""A program run as `python3 main.py` runs it, in this process: the job's
/work/main.py in a fresh __main__ module.  Two callers: the plain fork
server's child (warm.run_main), and the runner's "main" jobs (run_job): each
stdio case, whose code is compiled under the name the other formats give it
(solution.py), and a plain run with a seed, which needs random and numpy
seeded before the program runs (no interpreter option does that).

The module gets the attributes the interpreter gives a script; an uncaught
exception is printed as the interpreter prints it, without this file's
frames, and exits 1; sys.exit and the end of the script exit as the
interpreter would.  The end is the interpreter's own, in its order
(non-daemon threads joined, atexit handlers, the job's globals cleared so
their __del__ runs, streams flushed), but without tearing down the modules
already imported: in a fork server's child that would write to every page
of the server's heap and copy it."""

import os
import sys

# The end is os._exit as it was before the program ran: a program may
# replace os._exit (the interpreter's own end never calls it), and the one
# it left would return, into the runner (for a seeded run or a stdio case:
# its traceback, status 1) or the fork server's bootstrap.
_exit = os._exit
# The runner's modules once out of sys.modules (detach), still referenced:
# a module no one references is freed, and with it every object only it
# held, which in a job forked from a server writes to the server's pages
# they sit on. _NAMES: their names, taken in a fork server before its jobs
# (remember_modules), since going through sys.modules touches the
# reference count of every name in it, a page copied for every few of them
# in a job: about 0.15 ms of a HumanEval request on the 2-core machine.
_DETACHED = []
_NAMES = None


def _runner_modules():
    pkg = __name__.partition(".")[0]
    return [n for n in sys.modules if n == pkg or n.startswith(pkg + ".")]


def remember_modules():
    """In a fork server, once its imports are done."""
    global _NAMES
    _NAMES = tuple(_runner_modules())


def detach():
    """Takes the runner's modules out of sys.modules: those named ahead,
    and any imported since, which the import system made attributes of
    the package."""
    if _NAMES is None:
        names = _runner_modules()
    else:
        pkg = sys.modules.get(__name__.partition(".")[0])
        names = list(_NAMES) + [
            m.__name__ for m in list(getattr(pkg, "__dict__", {}).values())
            if type(m) is type(sys) and m.__name__.startswith(pkg.__name__ + ".")]
    for name in names:
        m = sys.modules.pop(name, None)
        if m is not None:
            _DETACHED.append(m)


def run_job(job):
    """The runner's "main" job ({"format": "main", "filename", "seed"}):
    argv and sys.path as `python3 main.py` gives them (argv[0] is the name
    the code is compiled under), the runner out of the program's reach, the
    seed applied, then run().  Never returns."""
    path = os.path.join(os.getcwd(), "main.py")
    filename = job["filename"]
    seed = job.get("seed")
    if seed is not None:
        from .seeding import NumpySeeder, reseed
        sys.meta_path.insert(0, NumpySeeder(seed))
        reseed(seed)
    sys.argv[:] = [os.path.basename(filename)]
    if sys.path:
        sys.path[0] = os.getcwd()       # not the runner's archive
    detach()
    run(path, filename)


def _module(path, filename):
    """A script's __main__, as the interpreter makes it."""
    import builtins
    import importlib.machinery
    import types
    mod = types.ModuleType("__main__")
    mod.__file__ = filename
    mod.__cached__ = None
    mod.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    mod.__spec__ = None
    mod.__package__ = None
    mod.__builtins__ = builtins
    mod.__annotations__ = {}     # the interpreter gives a script's __main__ one
    return mod


def _compiled(path, filename):
    with open(path, "rb") as f:
        src = f.read()
    if filename != path:
        _remember(filename, src)
    return compile(src, filename, "exec", dont_inherit=True)


def run(path=None, filename=None):
    """Runs the script at path (default: main.py in the working directory),
    its code compiled under filename (default: path, as the interpreter
    does).  Never returns."""
    path = path or os.path.join(os.getcwd(), "main.py")
    filename = filename or path
    mod = _module(path, filename)
    sys.modules["__main__"] = mod
    code = 0
    try:
        try:
            obj = _compiled(path, filename)
            exec(obj, mod.__dict__)
        except SystemExit as e:
            code = _exit_code(e)
        except BaseException as e:
            tb = e.__traceback__.tb_next if e.__traceback__ else None
            _print_exception(e.with_traceback(tb), tb, filename != path)
            if isinstance(e, KeyboardInterrupt):
                _exit_sigint()
            code = 1
        code = _finalize(mod, code)
    finally:
        _exit(code)


def rehearse():
    """What run() does around a program, on an empty one (os.devnull) in a
    module of its own that nothing sees, so that the pages it writes are
    copied in a job forked ahead (warm._rehearse) rather than on the job's
    path: __main__ made, its source read and compiled, run, then the end's
    steps that leave nothing behind (the globals cleared, a collection, the
    standard streams flushed: a server never writes to them, so there is
    nothing to flush). Not the end's threads or exit handlers: those of a
    preloaded server's imports are dropped only when its job comes
    (warm._fresh)."""
    import gc
    mod = _module(os.devnull, os.devnull)
    exec(_compiled(os.devnull, os.devnull), mod.__dict__)
    mod.__dict__.clear()
    gc.collect()
    for s in (sys.stdout, sys.stderr):
        s.flush()


def _remember(filename, src):
    """The source under a name no file has, so tracebacks (and warnings)
    show its lines, as the runner's other formats do (compile_step)."""
    import io
    import linecache
    import tokenize
    try:
        enc = tokenize.detect_encoding(io.BytesIO(src).readline)[0]
        text = src.decode(enc, "replace")
    except (SyntaxError, LookupError):
        return
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)


def _print_exception(e, tb, renamed):
    """The interpreter's own hook reads source lines from the file a frame
    names, and a renamed script has none: the traceback module prints the
    same text from linecache.  A hook the program set is called as the
    interpreter would."""
    if renamed and sys.excepthook is sys.__excepthook__:
        try:
            import traceback
            traceback.print_exception(type(e), e, tb)
            return
        except BaseException:
            pass
    sys.excepthook(type(e), e, tb)


def _exit_code(e):
    """The exit status the interpreter gives SystemExit(e.code)."""
    c = e.code
    if c is None:
        return 0
    if isinstance(c, int):
        return c & 0xff
    try:
        sys.stderr.write(str(c) + "\n")
    except Exception:
        pass
    return 1


def _run_exitfuncs():
    """atexit's handlers, when the module was ever imported: only it
    registers them (not imported for that: see warm._fresh)."""
    atexit = sys.modules.get("atexit")
    if atexit is not None:
        atexit._run_exitfuncs()


def _finalize(mod, code):
    import gc
    # As the interpreter's own end does: threads are waited for only when
    # threading was imported (by the job: the server never imports it), and
    # it is not imported for that.
    threading = sys.modules.get("threading")
    try:
        if threading is not None:
            threading._shutdown()
    except SystemExit as e:
        code = _exit_code(e)
    except BaseException:
        pass
    _run_exitfuncs()
    mod.__dict__.clear()
    gc.collect()
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except Exception:
            if code == 0:
                code = 120     # the interpreter's status when flushing fails
    return code


def _exit_sigint():
    """An uncaught KeyboardInterrupt ends a fresh interpreter by SIGINT,
    after its exit handlers."""
    import signal
    _run_exitfuncs()
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except Exception:
            pass
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)
