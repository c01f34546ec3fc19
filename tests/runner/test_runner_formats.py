#!/usr/bin/env python3
"""The other test formats (HumanEval check functions, asserts) and the
per-test timeout.

Part of the in-jail test runner's suite; tests/runner/runner_support.py
says how the runner is run. Run from the repository root:  make runner-tests
  (or: make build/runner.pyz && python3 tests/runner/test_runner_formats.py)
"""
import sys

sys.dont_write_bytecode = True  # runner_support stays uncompiled in the source tree

import time

from runner_support import RunnerTest, dedent, line_of, main


# --------------------------------------------------------------------- humaneval

HE_PROMPT = dedent('''
    from typing import List


    def below_zero(operations: List[int]) -> bool:
        """ Detect if at any point the balance falls below zero."""
''')
HE_TEST = dedent('''


    METADATA = {
        'author': 'jt',
        'dataset': 'test'
    }


    def check(candidate):
        assert candidate([]) == False
        assert candidate([1, 2, -3, 1, 2, -3]) == False
        assert candidate([1, 2, -4, 5, 6]) == True
''')


class HumanEvalTests(RunnerTest):
    def job(self, body, entry="below_zero"):
        return {"format": "humaneval", "code": HE_PROMPT + body, "tests": HE_TEST,
                "entry_point": entry}

    def test_correct_solution_passes(self):
        body = "    b = 0\n    for op in operations:\n        b += op\n" \
               "        if b < 0:\n            return True\n    return False\n"
        r = self.run_job(self.job(body))
        self.assertEqual(r.plan, ["check"])
        self.assertEqual(r.results["check"]["outcome"], "passed")
        self.assertTrue(r.done)

    def test_wrong_solution_fails_on_the_assert_line(self):
        r = self.run_job(self.job("    return False\n"))
        x = r.results["check"]
        self.assertEqual((x["outcome"], x["message"]), ("failed", "AssertionError"))
        # the module is code + "\n" + tests: real line numbers of that module
        line = line_of(HE_PROMPT + "    return False\n" + "\n" + HE_TEST, "-4, 5, 6")
        self.assertEqual(line, 17)
        self.assertIn('File "solution.py", line %d, in check\n'
                      '    assert candidate([1, 2, -4, 5, 6]) == True' % line, x["traceback"])
        self.assertCleanTraceback(x["traceback"])

    def test_missing_entry_point_function_is_an_error(self):
        r = self.run_job(self.job("    return False\n", entry="no_such_function"))
        x = r.results["check"]
        self.assertEqual((x["outcome"], x["message"]),
                         ("error", "NameError: name 'no_such_function' is not defined"))

    def test_missing_entry_point_in_job_is_a_harness_error(self):
        r = self.run_job(self.job("    return False\n", entry=None))
        self.assertIn("entry_point", r.one("harness_error")["message"])
        self.assertTrue(r.done)


# --------------------------------------------------------------------- asserts

class AssertsTests(RunnerTest):
    CODE = "def add(a, b):\n    return a + b\n"

    def test_asserts_named_by_their_text(self):
        tests = ["assert add(1, 2) == 3", "  assert add(2, 2) == 5  ", "assert add(0, 0) == 0"]
        r = self.run_job({"format": "asserts", "code": self.CODE, "tests": tests})
        self.assertEqual(r.plan, ["assert add(1, 2) == 3", "assert add(2, 2) == 5",
                                  "assert add(0, 0) == 0"])
        self.assertEqual([r.results[n]["outcome"] for n in r.plan], ["passed", "failed", "passed"])
        x = r.results["assert add(2, 2) == 5"]
        self.assertEqual(x["message"], "AssertionError: assert 4 == 5")
        self.assertIn('File "<assert 2>", line 1, in <module>\n    assert add(2, 2) == 5',
                      x["traceback"])
        self.assertIn("AssertionError: assert 4 == 5\n  where 4 = add(2, 2)", x["traceback"])
        self.assertCleanTraceback(x["traceback"])

    # Issue 13: a failing assert shows the values it compared, as pytest's
    # assertion rewriting does, and the candidate runs once per assert.
    def test_values_shown_and_candidate_called_once(self):
        code = "calls = []\ndef f(x):\n    calls.append(x)\n    return [x] * 3\n"
        r = self.run_job({"format": "asserts", "code": code, "tests": [
            "assert f(1) == [1, 1]", "assert calls == [1], calls",
            "assert f(2) == [2] * 3", "assert calls == [1, 2], calls",
            "assert len(f(3)) != 3, 'three'", "assert not f(4)", "assert 'a' in f('b')"]})
        self.assertEqual([r.results[n]["outcome"] for n in r.plan],
                         ["failed", "passed", "passed", "passed", "failed", "failed",
                          "failed"], r)
        res = [r.results[n] for n in r.plan]
        self.assertEqual(res[0]["message"], "AssertionError: assert [1, 1, 1] == [1, 1]")
        self.assertIn("  where [1, 1, 1] = f(1)", res[0]["traceback"])
        self.assertNotIn("where [1, 1] =", res[0]["traceback"])
        # The assert's own message first; the comparison after it.
        self.assertEqual(res[4]["message"], "AssertionError: three")
        self.assertIn("three\nassert 3 != 3\n  where 3 = len(f(3))", res[4]["traceback"])
        self.assertEqual(res[5]["message"], "AssertionError: assert False")
        self.assertIn("  where False = not f(4)", res[5]["traceback"])
        self.assertEqual(res[6]["message"], "AssertionError: assert 'a' in ['b', 'b', 'b']")

    def test_only_the_tests_own_asserts_are_explained(self):
        code = ("def g():\n    assert False, 'inside the candidate'\n"
                "class Loud:\n    def __repr__(self):\n        raise RuntimeError('no')\n"
                "def big():\n    return list(range(100000))\n")
        r = self.run_job({"format": "asserts", "code": code, "tests": [
            "assert g() == 1", "assert Loud() == 1", "assert big() == []",
            "def h():\n    assert 1 == 2\nh()"]})
        res = [r.results[n] for n in r.plan]
        self.assertEqual(res[0]["message"], "AssertionError: inside the candidate")
        self.assertNotIn("where", res[0]["traceback"])
        self.assertEqual(res[1]["message"], "AssertionError: assert <repr() raised "
                         "RuntimeError> == 1")
        self.assertLess(len(res[2]["message"]), 200, res[2]["message"])
        self.assertIn("...", res[2]["message"])
        # An assert inside a function the test defines runs in its own frame,
        # as written.
        self.assertEqual(res[3]["message"], "AssertionError")

    def test_duplicate_asserts_get_unique_names(self):
        tests = ["assert add(1, 1) == 2", "assert add(1, 1) == 2", "assert add(1, 1) == 2"]
        r = self.run_job({"format": "asserts", "code": self.CODE, "tests": tests})
        self.assertEqual(r.plan, ["assert add(1, 1) == 2", "assert add(1, 1) == 2 [2]",
                                  "assert add(1, 1) == 2 [3]"])
        self.assertEqual(len(r.results), 3)

    def test_error_in_candidate(self):
        r = self.run_job({"format": "asserts", "code": self.CODE,
                          "tests": ["assert add(1, None) == 1", "assert sub(1, 1) == 0"]})
        a, b = (r.results[n] for n in r.plan)
        self.assertEqual(a["outcome"], "error")
        self.assertTrue(a["message"].startswith("TypeError: unsupported operand"), a)
        self.assertIn('File "solution.py", line 2, in add', a["traceback"])
        self.assertEqual(b["message"], "NameError: name 'sub' is not defined")

    def test_assert_that_does_not_compile_is_a_harness_error(self):
        r = self.run_job({"format": "asserts", "code": self.CODE,
                          "tests": ["assert add(1, 1) == 2", "assert add(1,"]})
        self.assertIn("assert 2 does not compile", r.one("harness_error")["message"])
        self.assertEqual(r.of("start"), [])


# --------------------------------------------------------------------- timeouts

class TimeoutTests(RunnerTest):
    def test_hanging_tests_time_out_and_the_rest_still_run(self):
        tests = dedent('''
            import time, unittest
            class TestCases(unittest.TestCase):
                def test_busy_loop(self):
                    while True:
                        pass
                def test_sleep(self):
                    time.sleep(100)
                def test_catches_exception_in_a_loop(self):
                    while True:
                        try:
                            time.sleep(1)
                        except Exception:
                            pass
                def test_catches_exception_while_computing(self):
                    while True:
                        try:
                            sum(range(1000))
                        except Exception:
                            pass
                def test_normal(self):
                    self.assertEqual(1 + 1, 2)
        ''')
        t0 = time.monotonic()
        r = self.run_job({"format": "unittest", "code": "", "tests": tests,
                          "test_timeout_ms": 300})
        self.assertLess(time.monotonic() - t0, 5)
        self.assertTrue(r.done, r)
        res = r.results
        self.assertEqual(res.pop("test_normal")["outcome"], "passed")
        self.assertEqual(len(res), 4)
        for name, x in res.items():
            self.assertEqual(x["outcome"], "timeout", name)
            self.assertEqual(x["message"], "TestTimeout: test exceeded 300 ms")
            self.assertGreaterEqual(x["duration_ms"], 290)
            self.assertIn("solution.py", x["traceback"])     # where it was stuck
            self.assertCleanTraceback(x["traceback"])

    def test_timeout_covers_setup(self):
        tests = dedent('''
            import time, unittest
            class TestCases(unittest.TestCase):
                def setUp(self):
                    time.sleep(50)
                def test_a(self): pass
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests,
                          "test_timeout_ms": 200})
        self.assertEqual(r.results["test_a"]["outcome"], "timeout")

    def test_humaneval_and_asserts_time_out(self):
        r = self.run_job({"format": "humaneval", "code": "def f():\n    while True: pass\n",
                          "tests": "def check(c):\n    c()\n", "entry_point": "f",
                          "test_timeout_ms": 200})
        self.assertEqual(r.results["check"]["outcome"], "timeout")
        r = self.run_job({"format": "asserts", "code": "import time\n",
                          "tests": ["assert time.sleep(60) is None", "assert 1"],
                          "test_timeout_ms": 200})
        self.assertEqual([r.results[n]["outcome"] for n in r.plan], ["timeout", "passed"])

    def test_fast_tests_are_not_affected(self):
        r = self.run_job({"format": "asserts", "code": "",
                          "tests": ["assert sum(range(100000)) > 0"] * 20,
                          "test_timeout_ms": 1000})
        self.assertEqual({x["outcome"] for x in r.results.values()}, {"passed"})


if __name__ == "__main__":
    main()
