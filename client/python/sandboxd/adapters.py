"""Drop-in functions for the harnesses people already run, with sandboxd
doing the execution:

- `check_correctness(problem, completion, timeout, completion_id=None)`,
  shaped like openai/human-eval's `human_eval.execution.check_correctness`:
  returns {"task_id", "passed", "result", "completion_id"} with `result`
  "passed", "timed out" or "failed: <why>".
- `untrusted_check(code, test_code, entry_point, max_as_limit,
  max_data_limit, max_stack_limit, min_time_limit=10, gt_time_limit=60)`,
  shaped like BigCodeBench's `bigcodebench.eval.untrusted_check` (EvalPlus's
  descendant for unittest suites): returns (stat, details) with stat "pass",
  "fail" or "timeout" and details {test method: traceback} for the tests that
  failed or errored, or {"ALL": message} when the module itself failed.
- `evalplus_untrusted_check(code, inputs, entry_point, expected, atol,
  ref_time, fast_check=False, min_time_limit=0.1, gt_time_limit_factor=2.0)`,
  shaped like EvalPlus's `evalplus.eval.untrusted_check` (input/output
  checking): returns (stat, details) with stat "success", "failed" or
  "timed out" and details one bool per input checked, in order.

Both take an extra keyword `client=` (a sandboxd.Client); without it they
share one Client on $SBX_SOCKET (else /run/sandboxd.sock), which is
thread-safe, so the harnesses' thread pools can call them concurrently. A
request the daemon refuses raises sandboxd.SandboxdError: an infrastructure
failure is never scored as the candidate's.
"""
import base64
import os
import pickle
import re
import threading
from typing import Any, Dict, Optional, Tuple

from .client import Client, SandboxdError
from .results import Result

PASS, FAIL, TIMEOUT = "pass", "fail", "timeout"
_default: Optional[Client] = None
_default_lock = threading.Lock()


def default_client() -> Client:
    global _default
    with _default_lock:
        if _default is None:
            _default = Client()
        return _default


def _ms(seconds: float) -> int:
    return max(1, int(round(float(seconds) * 1000)))


def _exc_str(message: str) -> str:
    """str(exception) from a test's "Type: text" message, as the reference
    prints it in "failed: {e}" ("AssertionError" alone is "")."""
    m = re.match(r"([A-Za-z_][\w.]*)(?:: (.*))?$", message, re.S)
    if m and m.group(1).rsplit(".", 1)[-1].endswith(_EXC_SUFFIXES):
        return m.group(2) or ""
    return message


_EXC_SUFFIXES = ("Error", "Exception", "Exit", "Interrupt", "Iteration", "Warning")


def _why(r: Result) -> str:
    """The reference harnesses' "failed: {e}" text: the first failing test's
    exception, a syntax error as exec() words it, else the response's message."""
    for t in r.tests:
        if t.outcome != "passed" and t.outcome != "skipped":
            return _exc_str(t.message)
    if r.compile is not None and not r.compile.ok and r.compile.errors:
        e = r.compile.errors[0]
        return "%s (<string>, line %s)" % (e.message, e.line)
    return r.message or (r.verdict or "")


def check_correctness(problem: Dict[str, Any], completion: str, timeout: float,
                      completion_id: Optional[int] = None, *,
                      client: Optional[Client] = None) -> Dict[str, Any]:
    """human-eval's check_correctness: prompt + completion, then the problem's
    `check(entry_point)`, within `timeout` seconds (wall and CPU)."""
    c = client or default_client()
    t = _ms(timeout)
    r = c.run(problem["prompt"] + completion, tests=problem["test"], format="humaneval",
              entry_point=problem["entry_point"], limits={"wall_ms": t, "cpu_ms": t})
    if r.verdict == "pass":
        result = "passed"
    elif r.verdict == "timeout" or any(x.outcome == "timeout" for x in r.tests):
        result = "timed out"
    else:
        result = "failed: %s" % _why(r)
    return dict(task_id=problem["task_id"], passed=result == "passed", result=result,
                completion_id=completion_id)


def untrusted_check(code: str, test_code: str, entry_point: str, max_as_limit: float,
                    max_data_limit: float, max_stack_limit: float,
                    min_time_limit: float = 10, gt_time_limit: float = 60, *,
                    client: Optional[Client] = None) -> Tuple[str, Dict[str, str]]:
    """BigCodeBench's untrusted_check: `code + "\\n" + test_code` as one module,
    its TestCases run by unittest under one time limit, max(min_time_limit,
    gt_time_limit) but at least $BIGCODEBENCH_TIMEOUT_PER_TASK (240 s by
    default, as the reference), plus one second. `max_as_limit` (MiB) is
    the job's memory limit (the daemon clamps it to its profile's maximum);
    `max_data_limit` and `max_stack_limit` are covered by it, as the jail
    counts all of a job's memory."""
    del entry_point, max_data_limit, max_stack_limit  # the unittest format needs none
    c = client or default_client()
    per_task = float(os.environ.get("BIGCODEBENCH_TIMEOUT_PER_TASK", "240"))
    t = _ms(max(per_task, max(min_time_limit, gt_time_limit)) + 1)
    r = c.run(code, tests=test_code, format="unittest",
              limits={"wall_ms": t, "cpu_ms": t, "memory_mb": max(1, int(max_as_limit))})
    details = {x.name: x.traceback or x.message for x in r.tests
               if x.outcome in ("failed", "error", "timeout")}
    if r.verdict == "pass":
        return PASS, {}
    if r.verdict == "timeout":
        return TIMEOUT, details
    if r.verdict in ("compile_error", "runtime_error") or not details:
        # The module did not load (the reference's exec raised): str(e).
        if r.verdict == "compile_error":
            details = {"ALL": _why(r)}
        else:
            details = {"ALL": _exc_str(r.message) if r.message else _why(r)}
    return FAIL, details


# The checker EvalPlus runs after the candidate's code, as the first
# elements of an `asserts` request: each later assert checks one input
# (EvalPlus's comparison: exact, else within atol, 1e-6 for floats; its
# oracles for find_zero, are_equivalent and sum_div).
_EVALPLUS_CHECKER = """
import base64 as _sbx_b64, math as _sbx_math, pickle as _sbx_pickle, signal as _sbx_signal
_sbx_in, _sbx_exp, _sbx_atol, _sbx_limits, _sbx_alarm = _sbx_pickle.loads(_sbx_b64.b64decode(%r))
_sbx_fn = %s
_sbx_name = %r
_sbx_state = {"orig": True, "const": True}
_sbx_np = __import__("numpy") if %r else None  # imported here, outside any input's time
class _SbxTimeout(Exception):
    pass
def _sbx_raise(*_):
    raise _SbxTimeout("timed out")
def _sbx_floats(x):
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)):
        return all(isinstance(i, float) for i in x)
    return type(x).__name__ == "ndarray" and str(x.dtype) in ("float64", "float32")
def _sbx_oracle(out, exp, const):
    st = _sbx_state
    if st["orig"] and out != exp:
        st["orig"] = False
    if st["const"] and out != const:
        st["const"] = False
    return st["orig"] or st["const"]
def _sbx_call(i):
    if not _sbx_alarm:
        return _sbx_fn(*_sbx_in[i])
    old = _sbx_signal.signal(_sbx_signal.SIGALRM, _sbx_raise)
    _sbx_signal.setitimer(_sbx_signal.ITIMER_REAL, _sbx_limits[i])
    try:
        return _sbx_fn(*_sbx_in[i])
    finally:
        _sbx_signal.setitimer(_sbx_signal.ITIMER_REAL, 0)
        _sbx_signal.signal(_sbx_signal.SIGALRM, old)
def _sbx_check(i):
    global _sbx_atol
    inp, exp = _sbx_in[i], _sbx_exp[i]
    out = _sbx_call(i)
    exact = out == exp
    if _sbx_name == "are_equivalent":
        exact = _sbx_oracle(out, exp, True)
    elif _sbx_name == "sum_div":
        exact = _sbx_oracle(out, exp, 0)
    elif _sbx_name == "find_zero":
        xs = inp[0]
        assert abs(sum(c * _sbx_math.pow(out, k) for k, c in enumerate(xs))) <= _sbx_atol
    if _sbx_atol == 0 and _sbx_floats(exp):
        _sbx_atol = 1e-6
    if not exact and _sbx_atol != 0:
        (_sbx_np or __import__("numpy")).testing.assert_allclose(out, exp, atol=_sbx_atol)
    else:
        assert exact
    return True
"""


def _is_floats(x) -> bool:
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)):
        return all(isinstance(i, float) for i in x)
    return type(x).__name__ == "ndarray"


def evalplus_untrusted_check(code: str, inputs, entry_point: str, expected, atol,
                             ref_time, fast_check: bool = False, min_time_limit: float = 0.1,
                             gt_time_limit_factor: float = 2.0, *,
                             client: Optional[Client] = None,
                             isolation: Optional[str] = None) -> Tuple[str, list]:
    """EvalPlus's untrusted_check: each input's call under its own time
    limit, max(min_time_limit, gt_time_limit_factor * ref_time[i]) (a
    SIGALRM timer in the job, as the reference's), the whole job under
    their sum plus a second or two and 2 s for the interpreter's start. An
    input that fails, raises or times out is False; with fast_check the
    details stop at the first False. `isolation="process"` runs the
    candidate apart from the checker; each input's limit is then the
    daemon's per-test limit, the largest of them and at least 1 s (the
    checker's own setup runs under the same clock)."""
    c = client or default_client()
    limits = [max(min_time_limit, gt_time_limit_factor * t) for t in ref_time] or [1.0]
    limits += [max(limits)] * (len(inputs) - len(limits))
    total = sum(limits) + (1 if fast_check else 2) + 2
    alarm = isolation != "process"
    data = base64.b64encode(pickle.dumps((list(inputs), list(expected), atol, limits,
                                          alarm))).decode()
    if not entry_point.isidentifier():
        raise ValueError("entry_point %r is not an identifier" % entry_point)
    floats = atol != 0 or any(_is_floats(x) for x in expected)
    checker = _EVALPLUS_CHECKER % (data, entry_point, entry_point, floats)
    tests = [checker] + ["assert _sbx_check(%d)" % i for i in range(len(inputs))]
    r = c.run(code, tests=tests, format="asserts",
              test_timeout_ms=None if alarm else _ms(max(max(limits), 1.0)),
              limits={"wall_ms": _ms(total), "cpu_ms": _ms(total)}, isolation=isolation)
    checks = r.tests[1:]
    if r.tests and not r.tests[0].passed:  # the module itself failed
        return "failed", []
    details = []
    for t in checks:
        if t.outcome == "skipped" or (t.outcome == "error" and r.verdict == "timeout"
                                      and t.message.startswith("not run")):
            break
        details.append(t.passed)
        if fast_check and not t.passed:
            break
    if r.verdict == "timeout":
        return "timed out", details
    if r.verdict == "pass" and len(details) == len(inputs) and all(details):
        return "success", details
    return "failed", details


__all__ = ["check_correctness", "untrusted_check", "evalplus_untrusted_check", "default_client", "PASS", "FAIL",
           "TIMEOUT", "SandboxdError"]
