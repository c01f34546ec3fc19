# format: humaneval
# in-process: fail
# process: fail
# os._exit(0) from the function under test: the run ends without results.
import os


def solve(x):
    os._exit(0)
