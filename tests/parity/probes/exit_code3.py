# parity probe: sys.exit(3) at top level after unflushed output.
import sys

print("about to exit 3", end="")


def probe():
    pass


sys.exit(3)
