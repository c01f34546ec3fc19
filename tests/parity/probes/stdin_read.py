# parity probe: reading stdin: the whole of it, then EOF again; the request
# gives stdin (driver: "stdin" below) in one mode and none in another.
# stdin: line one\nline two \u00e9\n\nlast line without newline
import sys

data = sys.stdin.read()
print("read:", repr(data), len(data))
print("again:", repr(sys.stdin.read()), repr(sys.stdin.readline()))
print("isatty:", sys.stdin.isatty(), "closed:", sys.stdin.closed)


def probe():
    print("in test, stdin read:", repr(sys.stdin.read()))
