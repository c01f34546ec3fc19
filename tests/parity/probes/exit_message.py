# parity probe: sys.exit("msg"): the message on stderr, exit code 1.
import sys

print("about to exit with a message")


def probe():
    pass


sys.exit("exit message \u2713")
