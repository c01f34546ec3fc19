#!/usr/bin/env python3
"""PartialModeTests: which tests "partial" coverage shows under each
partial_mode. "fixed" (the default) sends no "partial" list: the daemon
shows the first partial_tests test methods. "convcodeworld" marks, in the
plan record, the tests among the first partial_tests method definitions
of the test source's classes, setUp and helpers counted, as ConvCodeWorld
computed its published CF_EF_UNIT numbers.

Part of the in-jail test runner's suite; tests/runner/runner_support.py
says how the runner is run. Run from the repository root:  make runner-tests
  (or: make build/runner.pyz && python3 tests/runner/test_runner_partial.py)
"""
import sys

sys.dont_write_bytecode = True  # runner_support stays uncompiled in the source tree

from runner_support import RunnerTest, dedent, main, run_job

CODE = "def f(x):\n    return x\n"

# setUp and a helper come first: ConvCodeWorld's three places go to setUp,
# the helper and test_a, so only test_a is shown; the fixed rule shows
# test_a, test_b, test_c.
TESTS = dedent("""
    import unittest
    class TestCases(unittest.TestCase):
        def setUp(self):
            self.v = 1
        def helper(self, x):
            return f(x)
        def test_a(self):
            self.assertEqual(self.helper(1), 2)
        def test_b(self):
            self.assertEqual(f(2), 3)
        def test_c(self):
            self.assertEqual(f(3), 3)
        def test_d(self):
            self.assertEqual(f(4), 5)
""")


class PartialModeTests(RunnerTest):
    def job(self, tests=TESTS, **extra):
        j = {"format": "unittest", "code": CODE, "tests": tests}
        j.update(extra)
        return self.run_job(j)

    def test_fixed_sends_no_partial_list(self):
        for extra in ({}, {"partial_mode": "fixed"}):
            r = self.job(**extra)
            plan = r.one("plan")
            self.assertEqual(plan["tests"], ["test_a", "test_b", "test_c", "test_d"])
            self.assertNotIn("partial", plan, extra)
            # Every test still runs: the mode changes what is shown, not the verdict.
            self.assertEqual(sorted(r.results), ["test_a", "test_b", "test_c", "test_d"])

    def test_convcodeworld_counts_setup_and_helpers(self):
        r = self.job(partial_mode="convcodeworld", partial_tests=3)
        plan = r.one("plan")
        self.assertEqual(plan["tests"], ["test_a", "test_b", "test_c", "test_d"])
        self.assertEqual(plan["partial"], ["test_a"])
        self.assertEqual(sorted(r.results), ["test_a", "test_b", "test_c", "test_d"])
        self.assertEqual(r.results["test_b"]["outcome"], "failed")
        # A larger count reaches further, still in source order.
        r = self.job(partial_mode="convcodeworld", partial_tests=4)
        self.assertEqual(r.one("plan")["partial"], ["test_a", "test_b"])

    def test_convcodeworld_may_show_nothing(self):
        tests = dedent("""
            import unittest
            class Mock:
                def __init__(self):
                    pass
                def get(self):
                    def inner():
                        return 1
                    return inner
            class TestCases(unittest.TestCase):
                def test_a(self):
                    self.assertEqual(f(1), 2)
        """)
        # Mock's __init__, get and get's nested inner take the three places
        # (every class of the test source counts, nested defs too).
        r = self.job(tests=tests, partial_mode="convcodeworld", partial_tests=3)
        self.assertEqual(r.one("plan")["partial"], [])
        r = self.job(tests=tests, partial_mode="convcodeworld", partial_tests=4)
        self.assertEqual(r.one("plan")["partial"], ["test_a"])

    def test_bad_mode_is_a_harness_error(self):
        for extra in ({"partial_mode": "first3"},
                      {"partial_mode": "convcodeworld"},
                      {"partial_mode": "convcodeworld", "partial_tests": 0}):
            # A job the runner refuses is refused before the compile record.
            r = run_job(dict({"format": "unittest", "code": CODE, "tests": TESTS}, **extra))
            self.assertTrue(r.of("harness_error"), (extra, r))
            self.assertFalse(r.of("plan"), (extra, r))


if __name__ == "__main__":
    main()
