# format: asserts
# in-process: fail
# process: fail
# sys.exit(0) from the function under test: never a pass, in either mode.
import math
import sys


def solve(x):
    sys.exit(0)
