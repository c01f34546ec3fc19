# parity probe: an exception at top level: traceback text on stderr, exit
# code 1, output before it flushed. Deterministic on either path.
print("before the exception")


def inner():
    raise ValueError("top-level failure \u00e9")


def probe():
    pass


inner()
