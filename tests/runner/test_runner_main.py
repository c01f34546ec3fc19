#!/usr/bin/env python3
"""MainJobTests: the runner's "main" jobs (sbx_runner/script.py), which the
daemon uses for each stdio case and for a plain run with a seed: the job's
main.py runs as `python3 main.py` would run it, as __main__, its code
compiled under the job's file name (a stdio case's tracebacks name
solution.py, as its compile step does), random and numpy seeded first when
the job has a seed, and nothing reported on the result channel.

Part of the in-jail test runner's suite; tests/runner/runner_support.py
says how the runner is run. Run from the repository root:  make runner-tests
  (or: make build/runner.pyz && python3 tests/runner/test_runner_main.py)
"""
import sys

sys.dont_write_bytecode = True  # runner_support stays uncompiled in the source tree

import random
import unittest

from runner_support import dedent, main, run_job
from test_runner_bundle import system_numpy

PROGRAM = dedent('''
    import os, random, sys
    print("argv", sys.argv, "file", __file__, "name", __name__)
    print("path0", sys.path[0] == os.getcwd(), "fds", sorted(os.listdir("/proc/self/fd")))
    print("runner", [m for m in sys.modules if m.startswith("sbx_runner")])
    print("random", repr(random.random()))
    try:
        import numpy
    except ImportError:
        numpy = None
    print("numpy", repr(numpy.random.rand()) if numpy else "-")
    def f(x):
        return 1 / x
    f(int(sys.stdin.read() or 0))
''')


def run_main(filename, seed=None, program=PROGRAM):
    return run_job({"format": "main", "filename": filename, "seed": seed},
                   work_files={"main.py": program})


def lines(r):
    return {ln.split(" ", 1)[0]: ln.split(" ", 1)[1] for ln in r.stdout.splitlines()}


class MainJobTests(unittest.TestCase):
    maxDiff = None

    def test_runs_main_py_as_a_program_under_the_jobs_file_name(self):
        r = run_main("solution.py")
        out = lines(r)
        self.assertEqual(out["argv"], "['solution.py'] file solution.py name __main__", r)
        self.assertEqual(out["path0"], "True fds ['0', '1', '2', '3']", r)  # 3: listdir's
        self.assertEqual(out["runner"], "[]", r)
        # Reports nothing: no record, the status is the program's.
        self.assertEqual(r.records, [], r)
        self.assertEqual(r.rc, 1, r)
        # The traceback names the file as the compile step does, with the
        # lines, and none of the runner's frames.
        n = PROGRAM.splitlines().index("f(int(sys.stdin.read() or 0))") + 1
        self.assertEqual(r.stderr, dedent('''
            Traceback (most recent call last):
              File "solution.py", line %d, in <module>
                f(int(sys.stdin.read() or 0))
              File "solution.py", line %d, in f
                return 1 / x
                       ~~^~~
            ZeroDivisionError: division by zero
        ''') % (n, n - 1), r)

    def test_a_plain_name_is_the_interpreters(self):
        # A seeded plain run: its own path, as `python3 main.py` names it.
        r = run_job({"format": "main", "filename": "/nonexistent/main.py", "seed": None},
                    work_files={"main.py": "import sys\nprint(sys.argv, __file__)\n"
                                "raise SystemExit(3)\n"})
        self.assertEqual(r.stdout, "['main.py'] /nonexistent/main.py\n", r)
        self.assertEqual(r.rc, 3, r)

    def test_seeded_before_the_program(self):
        a, b = lines(run_main("solution.py", 1234)), lines(run_main("solution.py", 1234))
        self.assertEqual(a["random"], repr(random.Random(1234).random()))
        self.assertEqual(a, b)
        self.assertNotEqual(lines(run_main("solution.py", 99))["random"], a["random"])
        want = system_numpy()
        if want is not None:
            self.assertEqual(float(a["numpy"]), want)

    def test_unseeded_runs_differ(self):
        a, b = lines(run_main("solution.py")), lines(run_main("solution.py"))
        self.assertNotEqual(a["random"], b["random"])


if __name__ == "__main__":
    main()
