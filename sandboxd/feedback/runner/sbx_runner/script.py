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
    pkg = __name__.partition(".")[0]
    for name in [n for n in sys.modules if n == pkg or n.startswith(pkg + ".")]:
        del sys.modules[name]
    run(path, filename)


def run(path=None, filename=None):
    """Runs the script at path (default: main.py in the working directory),
    its code compiled under filename (default: path, as the interpreter
    does).  Never returns."""
    import builtins
    import importlib.machinery
    import types
    path = path or os.path.join(os.getcwd(), "main.py")
    filename = filename or path
    mod = types.ModuleType("__main__")
    mod.__file__ = filename
    mod.__cached__ = None
    mod.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    mod.__spec__ = None
    mod.__package__ = None
    mod.__builtins__ = builtins
    mod.__annotations__ = {}     # the interpreter gives a script's __main__ one
    sys.modules["__main__"] = mod
    code = 0
    try:
        try:
            with open(path, "rb") as f:
                src = f.read()
            if filename != path:
                _remember(filename, src)
            obj = compile(src, filename, "exec", dont_inherit=True)
            del src
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
