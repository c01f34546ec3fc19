"""Shared by the operations suite (tests/ops/, `make ops`, part of `make
check`): the build directory, running commands, and skips reported the way
tests/run_suite.sh counts them ("SKIP: ops/<test>: <reason>" on stderr)."""
import os
import subprocess
import sys
import unittest

BUILD = os.environ.get("SBX_BUILD", "build")
ROOT = os.getcwd()


def run(cmd, **kw):
    """cmd's CompletedProcess, output as text (never raises on failure)."""
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.run(cmd, text=True, **kw)


def skip(test, reason):
    sys.stderr.write("\nSKIP: ops/%s: %s\n" % (test.id().split(".", 1)[-1], reason))
    raise unittest.SkipTest(reason)


def make(*args, env=None):
    """A nested make of this tree, quiet; its CompletedProcess."""
    e = dict(os.environ)
    e.pop("MAKEFLAGS", None)
    e.pop("MFLAGS", None)
    e.update(env or {})
    return run(["make", "--no-print-directory", "-s"] + list(args), env=e)
