# parity probe: interpreter-wide state a preloaded module could change
# without touching sys.modules: warning filters, the recursion limit, the gc
# and switch settings, faulthandler, atexit's registry, the threads (Python's
# and the kernel's, e.g. a BLAS pool), codec search functions, the builtins,
# float and int printing and the decimal context. What is printed must be the
# same on both paths; sys.modules itself is not printed (docs/architecture.md,
# "Parity tests"). Deterministic on either path.
import atexit
import builtins
import decimal
import faulthandler
import gc
import os
import sys
import threading
import warnings


def show(tag):
    print(tag, "warnings.filters:", [(a, getattr(m, "pattern", m), c.__name__,
                                      getattr(mod, "pattern", mod), ln)
                                     for a, m, c, mod, ln in warnings.filters])
    print(tag, "recursionlimit:", sys.getrecursionlimit(), sys.getswitchinterval())
    print(tag, "gc:", gc.isenabled(), gc.get_threshold(), len(gc.callbacks), gc.get_debug())
    print(tag, "faulthandler:", faulthandler.is_enabled())
    print(tag, "atexit callbacks:", atexit._ncallbacks())
    print(tag, "threads:", [t.name for t in threading.enumerate()],
          "kernel tasks:", len(os.listdir("/proc/self/task")))
    print(tag, "int max str digits:", sys.get_int_max_str_digits())
    print(tag, "builtins:", sorted(dir(builtins)))
    print(tag, "float repr:", repr(0.1 + 0.2), 1e16, float("nan"))
    print(tag, "decimal:", decimal.getcontext())
    print(tag, "audit hooks visible:", hasattr(sys, "addaudithook"))
    print(tag, "trace/profile:", sys.gettrace(), sys.getprofile())
    print(tag, "stdio buffers:", sys.stdout.buffer.__class__.__name__, sys.stdout.write_through)
    print(tag, "environ PYTHON*:", sorted(k for k in os.environ if k.startswith("PYTHON")))


show("module")


def probe():
    show("test")
