"""The records the runner sends, built from the protocol's names.

Every name and cap comes from records_h, which the bundle's builder generates
from common/records.h (the daemon's side of the same protocol); nothing here
spells a field or a type as a literal."""

try:
    from . import records_h as H
except ImportError:    # the source tree: records_h.py is generated into the bundle
    raise SystemExit("sbx_runner: run the bundle (make build/runner.pyz), "
                     "not the sources")

# Outcomes, as the rest of the runner compares them.
PASSED = H.REC_OUT_PASSED
FAILED = H.REC_OUT_FAILED
ERROR = H.REC_OUT_ERROR
TIMEOUT = H.REC_OUT_TIMEOUT
SKIPPED = H.REC_OUT_SKIPPED
BAD = (FAILED, ERROR)                  # outcomes a later failure cannot replace

KEY = H.REC_F_KEY
KEY_LEN = H.REC_KEY_LEN
NAME_MAX_BYTES = H.REC_SEND_NAME_MAX
MESSAGE_CAP = H.REC_SEND_MESSAGE_MAX
TRACEBACK_CAP = H.REC_SEND_TRACEBACK_MAX
INTERNAL_CAP = H.REC_SEND_INTERNAL_MAX


def compile_ok():
    return {H.REC_F_TYPE: H.REC_COMPILE, H.REC_F_OK: True, H.REC_F_ERRORS: [],
            H.REC_F_FEEDBACK: H.REC_NO_SYNTAX_ERRORS}


def compile_failed(entry, feedback):
    return {H.REC_F_TYPE: H.REC_COMPILE, H.REC_F_OK: False,
            H.REC_F_ERRORS: [entry], H.REC_F_FEEDBACK: feedback}


def compile_error(type_, message, line, column, text):
    """One entry of a compile record's errors."""
    return {H.REC_E_TYPE: type_, H.REC_E_MESSAGE: message,
            H.REC_E_LINE: line, H.REC_E_COLUMN: column, H.REC_E_TEXT: text}


def plan(names, partial=None):
    rec = {H.REC_F_TYPE: H.REC_PLAN, H.REC_F_TESTS: list(names)}
    if partial is not None:
        rec[H.REC_F_PARTIAL] = list(partial)
    return rec


def start(name):
    return {H.REC_F_TYPE: H.REC_START, H.REC_F_NAME: name}


def result(name, outcome, message, traceback, duration_ms, extra=False,
           subtest=None):
    rec = {H.REC_F_TYPE: H.REC_RESULT, H.REC_F_NAME: name,
           H.REC_F_OUTCOME: outcome, H.REC_F_MESSAGE: message,
           H.REC_F_TRACEBACK: traceback, H.REC_F_DURATION_MS: duration_ms}
    if extra:
        rec[H.REC_F_EXTRA] = True
    if subtest is not None:
        rec[H.REC_F_SUBTEST] = subtest
    return rec


def note(message, traceback=None):
    rec = {H.REC_F_TYPE: H.REC_NOTE, H.REC_F_MESSAGE: message}
    if traceback is not None:
        rec[H.REC_F_TRACEBACK] = traceback
    return rec


def module_error(message, traceback):
    return {H.REC_F_TYPE: H.REC_MODULE_ERROR, H.REC_F_MESSAGE: message,
            H.REC_F_TRACEBACK: traceback}


def harness_error(message):
    return {H.REC_F_TYPE: H.REC_HARNESS_ERROR, H.REC_F_MESSAGE: message}


def done():
    return {H.REC_F_TYPE: H.REC_DONE}


def clean(v):
    """The daemon's JSON parser rejects NUL in strings: show it as \\x00."""
    if isinstance(v, str):
        return v.replace("\0", "\\x00") if "\0" in v else v
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
