# parity probe: atexit handlers registered by the program run at exit, in
# reverse order, and their output (printed without a trailing newline by the
# last one) reaches the response. Deterministic on either path.
import atexit
import sys

print("callbacks before:", atexit._ncallbacks())


def first():
    print("handler 1 ran")


def second(arg):
    print("handler 2 ran with", arg)
    sys.stderr.write("handler 2 stderr, no newline")


atexit.register(first)
atexit.register(second, "x")
print("callbacks after:", atexit._ncallbacks())


def probe():
    print("in test, callbacks:", atexit._ncallbacks())
