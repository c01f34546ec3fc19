#!/usr/bin/env python3
"""BundleTests: the bundle itself (built reproducibly from the sources, its
record names those of records.h, runnable under the jail's file name
without writing anything); SeedTests: random and numpy seeded per test.

Part of the in-jail test runner's suite; tests/runner/runner_support.py
says how the runner is run. Run from the repository root:  make runner-tests
  (or: make build/runner.pyz && python3 tests/runner/test_runner_bundle.py)
"""
import sys

sys.dont_write_bytecode = True  # runner_support stays uncompiled in the source tree

import ast
import os
import random
import shutil
import subprocess
import tempfile
import zipfile

from runner_support import (PYTHON, REC, RECORDS_H, REC_FIELDS, REC_OUTCOMES, REPO, RUNNER, RUNNER_SRC, RunnerTest, dedent, main)


# --------------------------------------------------------------------- the bundle

def build_bundle(out, src=RUNNER_SRC):
    subprocess.run([PYTHON, os.path.join(src, "build_pyz.py"), RECORDS_H, src, out],
                   check=True, capture_output=True)


class BundleTests(RunnerTest):
    def test_bundle_is_reproducible_and_current(self):
        with tempfile.TemporaryDirectory() as tmp:
            a, b = os.path.join(tmp, "a.pyz"), os.path.join(tmp, "b.pyz")
            build_bundle(a)
            # A copy, with other mtimes and another directory order, builds the same bytes.
            src = os.path.join(tmp, "src")
            shutil.copytree(RUNNER_SRC, src, ignore=shutil.ignore_patterns("__pycache__"))
            for d, _, files in os.walk(src):
                for f in files:
                    os.utime(os.path.join(d, f), (1e9, 1e9))
            build_bundle(b, src)
            with open(a, "rb") as fa, open(b, "rb") as fb:
                self.assertEqual(fa.read(), fb.read())
            with zipfile.ZipFile(a) as z:
                infos = z.infolist()
                sources = {n: z.read(n) for n in z.namelist() if not n.endswith(".pyc")}
        # The bundle under test holds the current sources (its bytecode is for
        # the interpreter that built it).
        with zipfile.ZipFile(RUNNER) as z:
            self.assertEqual({n: z.read(n) for n in z.namelist() if not n.endswith(".pyc")},
                             sources, "%s is not built from the current sources (make %s)" %
                             (RUNNER, os.path.relpath(RUNNER, REPO)))
        names = [i.filename for i in infos]
        self.assertEqual(names, sorted(names))
        self.assertEqual({i.date_time for i in infos}, {(1980, 1, 1, 0, 0, 0)})
        self.assertIn("__main__.py", names)
        self.assertIn("sbx_runner/records_h.py", names)
        self.assertFalse([n for n in names if "__pycache__" in n])
        # Bytecode only beside its source, for every module of the package.
        pycs = {n[:-1] for n in names if n.endswith(".pyc")}
        self.assertEqual(pycs, {n for n in names if n.startswith("sbx_runner/")
                                and n.endswith(".py")})

    def test_bundled_record_names_are_records_h(self):
        with zipfile.ZipFile(RUNNER) as z:
            src = z.read("sbx_runner/records_h.py").decode()
        ns = {}
        exec(src, ns)
        self.assertEqual({k: v for k, v in ns.items() if k.startswith("REC_")}, REC)
        self.assertGreater(len(REC), 40)

    def test_generator_refuses_what_it_does_not_understand(self):
        with tempfile.TemporaryDirectory() as tmp:
            h = os.path.join(tmp, "records.h")
            with open(h, "w") as f:
                f.write('#define REC_A "a"\n#define REC_B (1 << 4)\n')
            p = subprocess.run([PYTHON, os.path.join(RUNNER_SRC, "build_pyz.py"), h,
                                RUNNER_SRC, os.path.join(tmp, "x.pyz")],
                               capture_output=True, text=True)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("REC_B", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(tmp, "x.pyz")))

    def test_no_record_name_spelled_outside_records_h(self):
        """Records are built from records_h's names: no dict key or subscript
        (but the job's) in the runner's sources spells a record field, and no
        string spells an outcome."""
        pkg = os.path.join(RUNNER_SRC, "sbx_runner")
        found = []
        for name in sorted(os.listdir(pkg)):
            if not name.endswith(".py"):
                continue
            with open(os.path.join(pkg, name)) as f:
                tree = ast.parse(f.read(), name)
            for node in ast.walk(tree):
                keys = []
                if isinstance(node, ast.Dict):
                    keys = node.keys
                elif isinstance(node, ast.Subscript) and not (   # job["tests"]: the job's
                        getattr(node.value, "id", getattr(node.value, "attr", "")) == "job"):
                    keys = [node.slice]
                for k in keys:
                    if isinstance(k, ast.Constant) and k.value in REC_FIELDS:
                        found.append("%s:%d: %r" % (name, k.lineno, k.value))
                if isinstance(node, ast.Constant) and node.value in REC_OUTCOMES:
                    found.append("%s:%d: %r" % (name, node.lineno, node.value))
        self.assertEqual(found, [])

    # Bytecode compiled into the bundle names its file "sbx_runner/<module>.py".
    BYTECODE_JOB = {"format": "asserts", "code": "import __main__\n",
                    "tests": ["f = __main__.main.__code__.co_filename\n"
                              "assert f == 'sbx_runner/main.py', f", "assert 1 == 2"]}

    def test_bytecode_is_used(self):
        r = self.run_job(self.BYTECODE_JOB)
        self.assertEqual([r.results[n]["outcome"] for n in r.plan], ["passed", "failed"], r)
        self.assertCleanTraceback(r.results[r.plan[1]]["traceback"])

    def test_bytecode_for_another_python_falls_back_to_the_source(self):
        with tempfile.TemporaryDirectory() as tmp:
            for how in ("magic", "stale"):
                path = os.path.join(tmp, how + ".pyz")
                with zipfile.ZipFile(RUNNER) as src, zipfile.ZipFile(path, "w") as out:
                    for info in src.infolist():
                        data = src.read(info)
                        if info.filename.endswith(".pyc"):
                            if how == "magic":      # another Python version's
                                data = bytes([data[0] ^ 0xff]) + data[1:]
                            else:                   # its source hash no longer matches
                                data = data[:8] + bytes(8) + data[16:]
                        out.writestr(info, data)
                r = self.run_job(self.BYTECODE_JOB, runner=path)
                self.assertEqual([r.results[n]["outcome"] for n in r.plan],
                                 ["failed", "failed"], (how, r))
                self.assertEqual(r.results[r.plan[0]]["message"],
                                 "AssertionError: %s/sbx_runner/main.py" % path, (how, r))
                self.assertCleanTraceback(r.results[r.plan[1]]["traceback"])
                self.assertTrue(r.done)

    def test_runs_under_the_jails_name_and_writes_nothing(self):
        # In the jail the bundle is /sandboxd/runner.py: Python runs a zip by
        # its content, whatever the name.  Without -B, too, nothing is written
        # beside it (the jail's root is read-only).
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "runner.py")
            shutil.copyfile(RUNNER, path)
            for flags in (("-B",), ()):
                r = self.run_job({"format": "humaneval",
                                  "code": "def add(a, b):\n    return a + b\n",
                                  "tests": "def check(f):\n    assert f(1, 2) == 3\n",
                                  "entry_point": "add"}, runner=path, flags=flags)
                self.assertEqual(r.results["check"]["outcome"], "passed", r)
                self.assertTrue(r.done)
            self.assertEqual(os.listdir(tmp), ["runner.py"])


# --------------------------------------------------------------------- seeding

def system_numpy():
    """numpy of /usr/bin/python3, as the runner sees it (None: not installed)."""
    p = subprocess.run([PYTHON, "-c", "import numpy as np\n"
                        "print(repr(np.random.RandomState(1234).rand()))"],
                       capture_output=True, text=True)
    return float(p.stdout) if p.returncode == 0 else None


class SeedTests(RunnerTest):
    TESTS = dedent('''
        import random, unittest
        try:
            import numpy
        except ImportError:
            numpy = None
        AT_IMPORT = random.random()
        class TestCases(unittest.TestCase):
            def test_a(self):
                print("A", repr(AT_IMPORT), repr(random.random()),
                      repr(numpy.random.rand()) if numpy else "-")
            def test_b(self):
                print("B", repr(random.random()),
                      repr(numpy.random.rand()) if numpy else "-")
    ''')

    def values(self, seed):
        r = self.run_job({"format": "unittest", "code": "", "tests": self.TESTS, "seed": seed})
        self.assertEqual({x["outcome"] for x in r.results.values()}, {"passed"}, r)
        lines = {ln.split()[0]: ln.split()[1:] for ln in r.stdout.splitlines()}
        return lines

    def test_same_seed_same_values(self):
        a, b = self.values(1234), self.values(1234)
        self.assertEqual(a, b)
        expected = repr(random.Random(1234).random())
        # seeded before the module runs, and again before each test
        self.assertEqual(a["A"][:2], [expected, expected])
        self.assertEqual(a["B"][0], expected)
        self.assertNotEqual(self.values(99)["B"][0], expected)

    def test_numpy_seeded_on_import_and_before_each_test(self):
        want = system_numpy()
        if want is None:
            self.skipTest("numpy is not installed for %s" % PYTHON)
        a = self.values(1234)
        self.assertEqual(float(a["A"][2]), want)
        self.assertEqual(float(a["B"][1]), want)
        self.assertEqual(a, self.values(1234))

    def test_numpy_seeded_when_imported_inside_a_test(self):
        if system_numpy() is None:
            self.skipTest("numpy is not installed for %s" % PYTHON)
        r = self.run_job({"format": "asserts", "code": "", "seed": 1234, "tests": [
            "import numpy as np; assert np.random.rand() == "
            "np.random.RandomState(1234).rand()"]})
        self.assertEqual(r.results[r.plan[0]]["outcome"], "passed", r)


if __name__ == "__main__":
    main()
