"""Compiling: the candidate's code on its own first (its own line numbers;
code that does not compile never runs, and the "compile" format, which stdio
jobs use, stops there), then the module the tests run in, and each snippet
the runner executes, its source kept for tracebacks."""

import ast
import linecache

from . import records
from .job import HarnessError
from .text import COMPILE_ERRORS, syntax_feedback


def compile_candidate(code, filename):
    """(code object, compile record); the code object is None when the
    candidate does not compile."""
    try:
        cand = compile(code, filename, "exec", dont_inherit=True)
    except COMPILE_ERRORS as e:
        entry, fb = syntax_feedback(e, filename)
        return None, records.compile_failed(entry, fb)
    return cand, records.compile_ok()


def compile_module(src, filename, want_tree=True):
    """The candidate and its tests as one module: (code object, AST, or None
    when the caller does not look at it: parsing it again costs about as
    much as the compile)."""
    try:
        mod_code = compile(src, filename, "exec", dont_inherit=True)
        tree = ast.parse(src, filename) if want_tree else None
    except COMPILE_ERRORS as e:
        raise HarnessError("the tests do not compile: " +
                           syntax_feedback(e, filename)[1])
    return mod_code, tree


def remember_source(label, text):
    """So tracebacks through `label` show its line."""
    linecache.cache[label] = (len(text), None, (text + "\n").splitlines(True),
                              label)
