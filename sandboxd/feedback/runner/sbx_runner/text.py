"""Messages a model sees: one-line exception summaries, capped tracebacks and
test names, and Python's own wording of a syntax error."""

import traceback

from . import records

MESSAGE_CAP = records.MESSAGE_CAP
TRACEBACK_CAP = records.TRACEBACK_CAP
NAME_MAX_BYTES = records.NAME_MAX_BYTES

# What compile() raises for source it cannot compile.
COMPILE_ERRORS = (SyntaxError, ValueError, MemoryError, RecursionError)


def safe_str(obj):
    try:
        return str(obj)
    except BaseException:
        return "<str() failed>"


def exc_name(exc):
    t = type(exc)
    name, mod = t.__qualname__, t.__module__
    if mod not in ("__main__", "builtins"):
        name = "%s.%s" % (mod, name)
    return name


def summarize(exc):
    """One line, "ExcType: first line of the message" (or just "ExcType")."""
    name = exc_name(exc)
    if isinstance(exc, SystemExit):
        # sys.exit(0) must read as what it is, not as an empty message.
        return "%s: %s" % (name, safe_str(exc.code))[:MESSAGE_CAP]
    text = safe_str(exc)
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    msg = "%s: %s" % (name, line) if line else name
    return msg if len(msg) <= MESSAGE_CAP else msg[:MESSAGE_CAP - 3] + "..."


def short_name(text):
    """Test names travel in the plan, where the daemon takes at most
    REC_NAME_MAX bytes of UTF-8 (room is left for a " [n]" suffix)."""
    if len(text.encode("utf-8", "replace")) <= NAME_MAX_BYTES:
        return text
    cut = text.encode("utf-8", "replace")[:NAME_MAX_BYTES - 3]
    return cut.decode("utf-8", "ignore") + "..."


def cap(text, limit=TRACEBACK_CAP):
    """At most limit characters: head and tail, cut at line ends."""
    if len(text) <= limit:
        return text
    half = (limit - 5) // 2
    head, tail = text[:half], text[-half:]
    cut = head.rfind("\n")
    head = head[:cut] if cut > half // 2 else head
    cut = tail.find("\n")
    tail = tail[cut + 1:] if 0 <= cut < half // 2 else tail
    return head + "\n...\n" + tail


def syntax_feedback(exc, filename):
    """compile() failure → (error entry, Python's own traceback-style text)."""
    if isinstance(exc, SyntaxError):
        text = exc.text
        if isinstance(text, str):
            text = text.rstrip("\r\n")
        entry = records.compile_error(type(exc).__name__, safe_str(exc.msg),
                                      exc.lineno, exc.offset, text)
        if exc.filename is None:
            exc.filename = filename
    else:   # ValueError (null bytes), MemoryError, RecursionError
        entry = records.compile_error(type(exc).__name__, safe_str(exc),
                                      None, None, None)
    try:
        fb = "".join(traceback.format_exception_only(type(exc), exc))
    except BaseException:
        fb = summarize(exc)
    return entry, fb.rstrip("\n")
