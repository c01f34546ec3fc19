"""asserts (MBPP): the code is the module; each assert statement is its own
test, named by its text (shortened, and made unique with " [n]")."""

from .compile_step import remember_source
from .job import HarnessError
from .text import COMPILE_ERRORS, short_name, syntax_feedback


def prepare(runner, code, cand):
    """Static plan; returns (module source, module code, [(name, code)])."""
    names, compiled = [], []
    for i, text in enumerate(runner.job["tests"], 1):
        text = text.strip()
        label = "<assert %d>" % i
        if not text:
            raise HarnessError("assert %d is empty" % i)
        try:
            c = compile(text, label, "exec", dont_inherit=True)
        except COMPILE_ERRORS as e:
            raise HarnessError("assert %d does not compile: %s" %
                               (i, syntax_feedback(e, label)[1]))
        remember_source(label, text)
        base = short_name(text)
        name, n = base, 1
        while name in names:
            n += 1
            name = "%s [%d]" % (base, n)
        names.append(name)
        compiled.append((name, c))
    runner.plan = names
    return code, cand, compiled


def callables(module, compiled):
    """The tests, as (name, function) for Runner.run_callable."""
    return [(name, lambda c=code_obj: exec(c, module.__dict__))
            for name, code_obj in compiled]
