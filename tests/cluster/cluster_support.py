"""Shared code of the cluster tier (make check-cluster): where things are,
commands with a deadline, and a unittest main that prints every skip as
"SKIP: cluster/<Class>.<test>: <reason>" (tests/run_suite.sh counts them),
so a missing scheduler is never a silent pass."""
import os
import subprocess
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(REPO, os.environ.get("SBX_BUILD", "build"))
DATASETS = os.environ.get("SBX_DATASETS", os.path.join(REPO, "..", "shared", "datasets"))


def run(cmd, timeout=60, check=True, **kw):
    """Runs cmd (a list), returns the CompletedProcess; stdout and stderr as
    text. check: raise AssertionError with both on a non-zero exit."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if check and p.returncode != 0:
        raise AssertionError("%s exited %d\nstdout:\n%s\nstderr:\n%s" %
                             (" ".join(cmd), p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    return p


def tail(path, n=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError as e:
        return "(%s)" % e


class _Result(unittest.TextTestResult):
    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        name = "%s.%s" % (type(test).__name__, getattr(test, "_testMethodName", str(test)))
        sys.stderr.write("\nSKIP: cluster/%s: %s\n" % (name, " ".join(str(reason).split())))
        sys.stderr.flush()


def main():
    runner = unittest.TextTestRunner(resultclass=_Result, verbosity=2)
    unittest.main(module="__main__", testRunner=runner)
