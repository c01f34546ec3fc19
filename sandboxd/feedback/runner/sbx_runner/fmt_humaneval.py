"""humaneval: `code + "\\n" + tests` is one module, then `check(entry_point)`
(the reference harness's last line) is the one test, named "check"."""

import keyword

from .compile_step import compile_module, remember_source
from .job import HarnessError

LABEL = "<check>"


def prepare(runner, code, cand):
    """Static plan; returns (module source, module code, the check call)."""
    ep = runner.job.get("entry_point")
    if not (ep and ep.isidentifier() and not keyword.iskeyword(ep)):
        raise HarnessError("humaneval job needs an entry_point identifier")
    src = code + "\n" + runner.job["tests"]
    mod_code, _ = compile_module(src, runner.filename, want_tree=False)
    runner.plan = ["check"]
    text = "check(%s)" % ep
    remember_source(LABEL, text)
    return src, mod_code, compile(text, LABEL, "exec", dont_inherit=True)


def prepare_isolated(runner, label):
    """isolation "process": the tests alone are the grader's module (the
    candidate's code runs in its own process); returns (tests source, their
    code, the check call)."""
    ep = runner.job.get("entry_point")
    if not (ep and ep.isidentifier() and not keyword.iskeyword(ep)):
        raise HarnessError("humaneval job needs an entry_point identifier")
    src = runner.job["tests"]
    mod_code, _ = compile_module(src, label, want_tree=False)
    runner.plan = ["check"]
    text = "check(%s)" % ep
    remember_source(LABEL, text)
    return src, mod_code, compile(text, LABEL, "exec", dont_inherit=True)


def callables(module, driver):
    """The test, as (name, function) for Runner.run_callable."""
    return [("check", lambda: exec(driver, module.__dict__))]
