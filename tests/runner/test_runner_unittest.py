#!/usr/bin/env python3
"""CompileTests and UnittestTests: how a candidate that does not compile is
reported, and unittest suites (BigCodeBench style): plans, subtests,
expected failures, skips, fixtures, inherited tests.

Part of the in-jail test runner's suite; tests/runner/runner_support.py
says how the runner is run. Run from the repository root:  make runner-tests
  (or: make build/runner.pyz && python3 tests/runner/test_runner_unittest.py)
"""
import sys

sys.dont_write_bytecode = True  # runner_support stays uncompiled in the source tree

from runner_support import RunnerTest, dedent, line_of, main


# --------------------------------------------------------------------- compile

class CompileTests(RunnerTest):
    def test_syntax_error_has_the_candidates_own_position(self):
        code = "import os\n\ndef f(:\n    return 1\n"
        tests = "import unittest\nclass TestCases(unittest.TestCase):\n" + \
            "".join("    def test_%d(self): pass\n" % i for i in range(50))
        r = self.run_job({"format": "unittest", "code": code, "tests": tests})
        c = r.one("compile")
        self.assertFalse(c["ok"])
        self.assertEqual(c["errors"], [{"type": "SyntaxError", "message": "invalid syntax",
                                        "line": 3, "column": 7, "text": "def f(:"}])
        self.assertEqual(c["feedback"], '  File "solution.py", line 3\n    def f(:\n'
                         '          ^\nSyntaxError: invalid syntax')
        self.assertEqual([x["type"] for x in r.records], ["compile", "done"])

    def test_indentation_error(self):
        r = self.run_job({"format": "unittest", "code": "def f():\nreturn 1\n",
                          "tests": "import unittest\n"})
        c = r.one("compile")
        self.assertFalse(c["ok"])
        e = c["errors"][0]
        self.assertEqual((e["type"], e["line"], e["text"]),
                         ("IndentationError", 2, "return 1"))
        self.assertIn("expected an indented block", e["message"])
        self.assertTrue(c["feedback"].startswith('  File "solution.py", line 2\n'), c)
        self.assertIn("IndentationError: expected an indented block", c["feedback"])
        self.assertFalse(c["feedback"].startswith("Traceback"))
        self.assertTrue(r.done)

    def test_tab_error(self):
        r = self.run_job({"format": "compile",
                          "code": "if True:\n        x = 1\n\ty = 2\n"})
        self.assertEqual(r.one("compile")["errors"][0]["type"], "TabError")

    def test_null_byte_is_a_compile_error(self):
        r = self.run_job({"format": "compile", "code": "x = 1\0\n"})
        c = r.one("compile")
        self.assertFalse(c["ok"])
        self.assertIn("null bytes", c["errors"][0]["message"])
        self.assertTrue(r.done)

    def test_ok_and_compile_format_stops_there(self):
        r = self.run_job({"format": "compile", "code": "def f():\n    return 1\n"})
        self.assertEqual(r.one("compile"), {"type": "compile", "ok": True, "errors": [],
                                            "feedback": "No syntax errors", "key": r.key})
        self.assertEqual([x["type"] for x in r.records], ["compile", "done"])

    def test_code_is_never_run_when_it_does_not_compile(self):
        r = self.run_job({"format": "asserts", "code": "print('ran')\nx = (\n",
                          "tests": ["assert True"]})
        self.assertFalse(r.one("compile")["ok"])
        self.assertNotIn("ran", r.stdout)

    def test_tests_that_do_not_compile_are_a_harness_error(self):
        r = self.run_job({"format": "unittest", "code": "x = 1\n",
                          "tests": "class TestCases(:\n"})
        self.assertTrue(r.one("compile")["ok"])
        self.assertIn("the tests do not compile", r.one("harness_error")["message"])
        self.assertEqual(r.of("plan"), [])
        self.assertTrue(r.done)


# --------------------------------------------------------------------- unittest

BCB_CODE = dedent('''
    import re
    from collections import Counter

    def task_func(text):
        """Counts the words of text, lower-cased."""
        words = re.findall(r"[a-z]+", text)
        return dict(Counter(words))
''')

BCB_TESTS = dedent('''
    import unittest
    from unittest import mock

    class TestCases(unittest.TestCase):
        def setUp(self):
            self.text = "a b a"

        def test_simple(self):
            self.assertEqual(task_func(self.text), {"a": 2, "b": 1})

        def test_case_insensitive(self):
            self.assertEqual(task_func("A a"), {"a": 2})

        def test_empty(self):
            self.assertEqual(task_func(""), {})

        @unittest.skip("not today")
        def test_skipped(self):
            raise RuntimeError("must not run")

        @mock.patch("re.findall", return_value=["x", "x"])
        def test_patched(self, findall):
            self.assertEqual(task_func("whatever"), {"x": 2})
            findall.assert_called_once()
''')


class UnittestTests(RunnerTest):
    def test_bigcodebench_style_task(self):
        r = self.run_job({"format": "unittest", "code": BCB_CODE, "tests": BCB_TESTS})
        self.assertTrue(r.done, r)
        self.assertEqual(r.plan, ["test_simple", "test_case_insensitive", "test_empty",
                                  "test_skipped", "test_patched"])
        res = r.results
        self.assertEqual({n: x["outcome"] for n, x in res.items()},
                         {"test_simple": "passed", "test_case_insensitive": "failed",
                          "test_empty": "passed", "test_skipped": "skipped",
                          "test_patched": "passed"})
        bad = res["test_case_insensitive"]
        self.assertEqual(bad["message"], "AssertionError: {'a': 1} != {'a': 2}")
        tb = bad["traceback"]
        self.assertTrue(tb.startswith("Traceback (most recent call last):\n"), tb)
        line = line_of(BCB_CODE + "\n" + BCB_TESTS, 'task_func("A a")')
        self.assertEqual(line, 20)
        self.assertIn('File "solution.py", line %d, in test_case_insensitive\n'
                      '    self.assertEqual(task_func("A a"), {"a": 2})' % line, tb)
        self.assertTrue(tb.endswith("AssertionError: {'a': 1} != {'a': 2}\n"
                                    "- {'a': 1}\n?       ^\n\n+ {'a': 2}\n?       ^"), tb)
        self.assertCleanTraceback(tb)
        self.assertEqual(res["test_skipped"]["message"], "not today")
        self.assertEqual(res["test_skipped"]["traceback"], "")

    def test_error_traceback_points_into_the_candidate(self):
        code = "def task_func(a, b):\n    x = a\n    return x / b\n"
        tests = dedent('''
            import unittest
            class TestCases(unittest.TestCase):
                def test_div(self):
                    self.assertEqual(task_func(1, 0), 0)
        ''')
        r = self.run_job({"format": "unittest", "code": code, "tests": tests})
        res = r.results["test_div"]
        self.assertEqual(res["outcome"], "error")
        self.assertEqual(res["message"], "ZeroDivisionError: division by zero")
        self.assertIn('File "solution.py", line 3, in task_func\n    return x / b',
                      res["traceback"])
        self.assertIn('File "solution.py", line 8, in test_div', res["traceback"])
        self.assertCleanTraceback(res["traceback"])

    def test_plan_is_in_source_order_before_anything_runs(self):
        tests = dedent('''
            import unittest
            print("module ran")
            class TestCases(unittest.TestCase):
                def test_b(self): pass
                def helper(self): pass
                async def test_c(self): pass
                def test_a(self): pass
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        self.assertEqual(r.plan, ["test_b", "test_c", "test_a"])
        self.assertEqual([x["type"] for x in r.records[:2]], ["compile", "plan"])
        # execution order is the loader's (alphabetical)
        self.assertEqual([x["name"] for x in r.of("start")], ["test_a", "test_b", "test_c"])

    def test_subtests_fold_into_one_result(self):
        tests = dedent('''
            import unittest
            class TestCases(unittest.TestCase):
                def test_many(self):
                    for i in range(4):
                        with self.subTest(i=i):
                            self.assertLess(i, 2)
                def test_all_pass(self):
                    for i in range(3):
                        with self.subTest(i=i):
                            self.assertLess(i, 5)
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        self.assertEqual(len(r.of("result")), 2)
        many = r.results["test_many"]
        self.assertEqual((many["outcome"], many["message"], many["subtest"]),
                         ("failed", "AssertionError: 2 not less than 2", "(i=2)"))
        self.assertEqual(r.results["test_all_pass"]["outcome"], "passed")

    def test_expected_failure_and_unexpected_success(self):
        tests = dedent('''
            import unittest
            class TestCases(unittest.TestCase):
                @unittest.expectedFailure
                def test_fails_as_expected(self):
                    self.assertEqual(1, 2)
                @unittest.expectedFailure
                def test_passes_unexpectedly(self):
                    pass
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        self.assertEqual(r.results["test_fails_as_expected"]["outcome"], "passed")
        self.assertEqual(r.results["test_passes_unexpectedly"]["outcome"], "failed")

    def test_skip_test_and_errors_in_setup_and_teardown(self):
        tests = dedent('''
            import unittest
            class TestCases(unittest.TestCase):
                def setUp(self):
                    if self._testMethodName == "test_setup_fails":
                        raise KeyError("setup")
                def tearDown(self):
                    if self._testMethodName == "test_teardown_fails":
                        raise ValueError("teardown")
                def test_setup_fails(self): pass
                def test_teardown_fails(self): pass
                def test_skips_itself(self):
                    self.skipTest("no network")
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        res = r.results
        self.assertEqual(res["test_setup_fails"]["outcome"], "error")
        self.assertEqual(res["test_setup_fails"]["message"], "KeyError: 'setup'")
        self.assertIn("in setUp", res["test_setup_fails"]["traceback"])
        self.assertEqual(res["test_teardown_fails"]["message"], "ValueError: teardown")
        self.assertEqual((res["test_skips_itself"]["outcome"],
                          res["test_skips_itself"]["message"]), ("skipped", "no network"))

    def test_setupclass_error_fails_every_test_and_teardownclass_is_a_note(self):
        tests = dedent('''
            import unittest
            class TestCases(unittest.TestCase):
                @classmethod
                def setUpClass(cls):
                    raise RuntimeError("no fixture")
                def test_one(self): pass
                def test_two(self): pass
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        self.assertTrue(r.done)
        for name in ("test_one", "test_two"):
            x = r.results[name]
            self.assertEqual((x["outcome"], x["message"]), ("error", "RuntimeError: no fixture"))
            self.assertIn("in setUpClass", x["traceback"])
        tests = tests.replace("setUpClass", "tearDownClass")
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        self.assertEqual({x["outcome"] for x in r.results.values()}, {"passed"})
        self.assertIn("tearDownClass", r.one("note")["message"])
        self.assertIn("RuntimeError: no fixture", r.one("note")["message"])

    def test_skipped_class(self):
        for deco, setup in (("@unittest.skip('later')", ""),
                            ("", "@classmethod\n    def setUpClass(cls):\n"
                                 "        raise unittest.SkipTest('later')\n    ")):
            tests = ("import unittest\n%s\nclass TestCases(unittest.TestCase):\n"
                     "    %sdef test_a(self): pass\n    def test_b(self): pass\n"
                     % (deco, setup))
            r = self.run_job({"format": "unittest", "code": "", "tests": tests})
            self.assertEqual({n: (x["outcome"], x["message"]) for n, x in r.results.items()},
                             {"test_a": ("skipped", "later"), "test_b": ("skipped", "later")},
                             tests)

    def test_setupmodule_and_setupclass_run(self):
        tests = dedent('''
            import unittest
            STATE = []
            def setUpModule():
                STATE.append("module")
            class TestCases(unittest.TestCase):
                @classmethod
                def setUpClass(cls):
                    STATE.append("class")
                def test_state(self):
                    self.assertEqual(STATE, ["module", "class"])
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        self.assertEqual(r.results["test_state"]["outcome"], "passed", r)

    def test_inherited_tests_are_extra(self):
        tests = dedent('''
            import unittest
            class Base(unittest.TestCase):
                def test_inherited(self): self.fail("extra")
            class TestCases(Base):
                def test_own(self): pass
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        self.assertEqual(r.plan, ["test_own"])
        extra = [x for x in r.of("result") if x.get("extra")]
        self.assertEqual([(x["name"], x["outcome"]) for x in extra], [("test_inherited", "failed")])
        self.assertEqual([x["name"] for x in r.of("start")], ["test_own"])

    def test_no_testcases_class_gives_an_empty_plan(self):
        r = self.run_job({"format": "unittest", "code": "x = 1\n",
                          "tests": "import unittest\nclass Other(unittest.TestCase):\n"
                                   "    def test_a(self): pass\n"})
        self.assertEqual(r.plan, [])
        self.assertEqual(r.of("result"), [])
        self.assertTrue(r.done)

    def test_planned_test_missing_at_run_time_is_an_error(self):
        tests = dedent('''
            import unittest
            class TestCases(unittest.TestCase):
                def test_a(self): pass
                def test_gone(self): pass
            del TestCases.test_gone
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        self.assertEqual(r.results["test_a"]["outcome"], "passed")
        self.assertEqual(r.results["test_gone"]["outcome"], "error")


if __name__ == "__main__":
    main()
