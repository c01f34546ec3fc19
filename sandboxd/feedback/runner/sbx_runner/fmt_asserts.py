"""asserts (MBPP): the code is the module; each assert statement is its own
test, named by its text (shortened, and made unique with " [n]").

A failing assert says what it compared, as pytest's assertion rewriting
does: the test's code (never the candidate's) is rewritten so each assert's
operands are computed once, into names of the tests' namespace, before the
comparison, and a failure's message then shows their values:

    AssertionError: assert 'hlo' == 'heo'
      where 'hlo' = remove_Occ("hello","l")

The candidate's function runs exactly once per assert, in the order the
original statement would run it; line numbers are the text's, so
tracebacks show the assert as written."""

import ast
import reprlib

from .compile_step import remember_source
from .job import HarnessError
from .text import COMPILE_ERRORS, safe_str, short_name, syntax_feedback

LEFT, RIGHT, VALUE = "__sbx_left__", "__sbx_right__", "__sbx_value__"
_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
        ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
        ast.NotIn: "not in"}
SOURCE_MAX = 120       # characters of an operand's source in a "where" line

class _Repr(reprlib.Repr):
    """reprlib's bounds; an object whose __repr__ fails reads the same in
    every run (reprlib's own fallback shows its address)."""

    def repr_instance(self, x, level):
        try:
            s = repr(x)
        except BaseException as e:
            return "<repr() raised %s>" % type(e).__name__
        if len(s) > self.maxother:
            i = max(0, (self.maxother - 3) // 2)
            s = s[:i] + "..." + s[len(s) - max(0, self.maxother - 3 - i):]
        return s


_repr = _Repr()
_repr.maxstring = _repr.maxother = 160
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxfrozenset = 12
_repr.maxdeque = _repr.maxarray = 12
_repr.maxdict = 8
_repr.maxlevel = 4


class _Rewriter(ast.NodeTransformer):
    """Each assert outside a def, class or lambda: its operands into names,
    then the same comparison (and message) on the names. info: line ->
    (operator or None, names, operand sources, operand is a literal), None
    where two asserts share a line (a failure could not say which)."""

    def __init__(self, text):
        self.text, self.info = text, {}

    def _skip(self, node):
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _skip
    visit_Lambda = _skip

    def visit_Assert(self, node):
        t = node.test
        if isinstance(t, ast.Compare) and len(t.ops) == 1 and type(t.ops[0]) in _OPS:
            names, exprs = (LEFT, RIGHT), (t.left, t.comparators[0])
            test = ast.Compare(left=ast.Name(id=LEFT, ctx=ast.Load()), ops=t.ops,
                               comparators=[ast.Name(id=RIGHT, ctx=ast.Load())])
            op = _OPS[type(t.ops[0])]
        else:
            names, exprs, op = (VALUE,), (t,), None
            test = ast.Name(id=VALUE, ctx=ast.Load())
        srcs = [ast.get_source_segment(self.text, e) or ast.unparse(e) for e in exprs]
        lits = [isinstance(e, ast.Constant) for e in exprs]
        key = node.lineno
        self.info[key] = None if key in self.info else (op, names, srcs, lits)
        out = [ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=e)
               for n, e in zip(names, exprs)]
        out.append(ast.Assert(test=test, msg=node.msg))
        return [ast.copy_location(s, node) for s in out]


def rewrite(text, label):
    """(code object, info) of one test's text, already known to compile."""
    tree = ast.parse(text, label)
    rw = _Rewriter(text)
    tree = ast.fix_missing_locations(rw.visit(tree))
    return compile(tree, label, "exec", dont_inherit=True), rw.info


def _show(value):
    try:
        return _repr.repr(value)
    except BaseException as e:  # the candidate's own __repr__ failed
        return "<repr() raised %s>" % type(e).__name__


def _src(text):
    text = " ".join(text.split())
    return text if len(text) <= SOURCE_MAX else text[:SOURCE_MAX - 3] + "..."


def explain(exc, code, info, ns):
    """Gives an AssertionError raised by one of this test's own asserts (not
    one a function it called raised) the values it compared."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None or tb.tb_frame.f_code is not code:
        return
    it = info.get(tb.tb_lineno)
    if not it:
        return
    op, names, srcs, lits = it
    vals = [_show(ns.get(n)) for n in names]
    lines = []
    if exc.args:                  # the assert's own message comes first
        lines.append(safe_str(exc))
    if op:
        lines.append("assert %s %s %s" % (vals[0], op, vals[1]))
    else:
        lines.append("assert %s" % vals[0])
    for v, s, lit in zip(vals, srcs, lits):
        if not lit and _src(s) != v:
            lines.append("  where %s = %s" % (v, _src(s)))
    exc.args = ("\n".join(lines),)


def prepare(runner, code, cand):
    """Static plan; returns (module source, module code,
    [(name, code, info)])."""
    names, compiled = [], []
    for i, text in enumerate(runner.job["tests"], 1):
        text = text.strip()
        label = "<assert %d>" % i
        if not text:
            raise HarnessError("assert %d is empty" % i)
        try:
            compile(text, label, "exec", dont_inherit=True)
            c, info = rewrite(text, label)
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
        compiled.append((name, c, info))
    runner.plan = names
    return code, cand, compiled


def _test(code, info, ns):
    # One frame, as the lambda it replaces: candidate code runs as deep as
    # before (recursion headroom is a behaviour, core.py).
    def test():
        try:
            exec(code, ns)
        except AssertionError as e:
            explain(e, code, info, ns)
            raise
    return test


def callables(module, compiled):
    """The tests, as (name, function) for Runner.run_callable."""
    return [(name, _test(code, info, module.__dict__)) for name, code, info in compiled]
