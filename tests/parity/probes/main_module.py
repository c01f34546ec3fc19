# parity probe: what a program sees of how it was started: sys.argv,
# sys.orig_argv, sys.executable, /proc/self/cmdline, the __main__ module's
# attributes (name, file, dir(), __spec__, __loader__ type, __builtins__),
# sys.flags, sys.path and the interpreter's import machinery. Deterministic
# on either path: nothing here depends on time, ids or randomness.
import sys

main = sys.modules["__main__"]


def show(tag):
    print(tag, "argv:", sys.argv)
    print(tag, "orig_argv:", sys.orig_argv)
    print(tag, "executable:", sys.executable, sys.prefix, sys.base_prefix)
    with open("/proc/self/cmdline", "rb") as f:
        print(tag, "cmdline:", f.read())
    print(tag, "__main__ is this module:", main.__dict__ is globals())
    print(tag, "__main__ name:", main.__name__)
    print(tag, "__main__ file:", getattr(main, "__file__", None))
    print(tag, "__main__ dir:", sorted(dir(main)))
    print(tag, "__main__ spec:", getattr(main, "__spec__", "missing"))
    print(tag, "__main__ loader:", type(getattr(main, "__loader__", None)).__name__)
    print(tag, "__main__ package:", repr(getattr(main, "__package__", "missing")))
    print(tag, "__main__ doc:", repr(getattr(main, "__doc__", "missing")))
    print(tag, "__main__ cached:", repr(getattr(main, "__cached__", "missing")))
    b = getattr(main, "__builtins__", None)
    print(tag, "__main__ builtins:", type(b).__name__, getattr(b, "__name__", None))
    print(tag, "this module name:", __name__)
    print(tag, "this module file:", globals().get("__file__"))
    print(tag, "globals:", sorted(k for k in globals() if k.startswith("__")))
    print(tag, "flags:", sys.flags)
    print(tag, "path:", sys.path)
    print(tag, "warnoptions:", sys.warnoptions, sys._xoptions)
    print(tag, "meta_path:", [type(m).__name__ if not isinstance(m, type) else m.__name__
                              for m in sys.meta_path])
    print(tag, "path_hooks:", [getattr(h, "__name__", type(h).__name__) for h in sys.path_hooks])
    print(tag, "dont_write_bytecode:", sys.dont_write_bytecode, sys.pycache_prefix)
    print(tag, "hooks:", sys.displayhook is sys.__displayhook__, sys.excepthook is sys.__excepthook__,
          sys.breakpointhook is sys.__breakpointhook__)
    print(tag, "ps1:", hasattr(sys, "ps1"), "interactive:", sys.flags.interactive)


show("module")


def probe():
    show("test")
