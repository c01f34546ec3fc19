"""Which traceback frames a model sees: its own code and third-party
libraries, never the runner, unittest or the rest of the stdlib.  Also what
counts as the runner's own code (the watchdog asks)."""

import os
import sysconfig
import traceback

from .text import cap, summarize

# The runner's files, as code objects name them: this package's modules
# ("sbx_runner/<module>.py" when compiled into the bundle, their path when
# compiled from source) and the bundle's __main__.py.
ROOT = os.path.dirname(os.path.dirname(__file__))   # the archive, or its dir
_PKG_PREFIX = os.path.join(os.path.dirname(
    (lambda: None).__code__.co_filename), "")
_MAIN_FILE = os.path.join(ROOT, "__main__.py")


def is_runner_file(fn):
    return fn.startswith(_PKG_PREFIX) or fn == _MAIN_FILE


def _stdlib_prefixes():
    prefixes = set()
    paths = sysconfig.get_paths()
    for k in ("stdlib", "platstdlib"):
        p = paths.get(k)
        if p:
            prefixes.add(os.path.join(os.path.normpath(p), ""))
            prefixes.add(os.path.join(os.path.realpath(p), ""))
    return tuple(prefixes)


# Once per interpreter, when the runner is imported: in a fork server that
# is before any job (each job's Frames took 2.5 ms on the machine of the
# README to compute them again, most of it copying the server's pages).
_STDLIB_PREFIXES = _stdlib_prefixes()


class Frames:
    def __init__(self, filename):
        self.filename = filename
        self.prefixes = _STDLIB_PREFIXES
        self.cache = {}

    def is_stdlib(self, fn):
        r = self.cache.get(fn)
        if r is None:
            r = fn.startswith("<frozen ") or (
                fn.startswith(self.prefixes)
                and "site-packages" not in fn and "dist-packages" not in fn)
            self.cache[fn] = r
        return r

    def keep(self, fn):
        if fn == self.filename:
            return True
        return not is_runner_file(fn) and not self.is_stdlib(fn)

    def _render(self, frames, exc_text):
        head = ""
        if frames:
            kept = [f for f in frames if self.keep(f.filename)] or [frames[-1]]
            head = ("Traceback (most recent call last):\n" +
                    "".join(traceback.StackSummary.from_list(kept).format()))
        return cap((head + exc_text).rstrip("\n"))

    def format_exc(self, exc):
        try:
            frames = traceback.extract_tb(exc.__traceback__)
            text = "".join(traceback.format_exception_only(type(exc), exc))
            return self._render(frames, text)
        except BaseException:
            return summarize(exc)

    def format_stack(self, frame, exc_text):
        try:
            return self._render(traceback.extract_stack(frame), exc_text)
        except BaseException:
            return exc_text
