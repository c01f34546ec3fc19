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

Both take an extra keyword `client=` (a sandboxd.Client); without it they
share one Client on $SBX_SOCKET (else /run/sandboxd.sock), which is
thread-safe, so the harnesses' thread pools can call them concurrently. A
request the daemon refuses raises sandboxd.SandboxdError: an infrastructure
failure is never scored as the candidate's.
"""
import os
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
        details = {"ALL": _why(r)} if not details else details
    return FAIL, details


__all__ = ["check_correctness", "untrusted_check", "default_client", "PASS", "FAIL",
           "TIMEOUT", "SandboxdError"]
