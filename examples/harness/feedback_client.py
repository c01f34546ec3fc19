#!/usr/bin/env python3
"""A harness snippet: get structured feedback for candidate code from
sandboxd with nothing but the standard library. Any language that can open a
Unix socket and write a JSON line can do the same.

    python3 examples/harness/feedback_client.py [SOCKET]
"""
import json
import os
import socket
import sys

CANDIDATE = """
def task_func(numbers):
    return sorted(numbers)[len(numbers) // 2]
"""

TESTS = """
import unittest

class TestCases(unittest.TestCase):
    def test_odd(self):
        self.assertEqual(task_func([3, 1, 2]), 2)

    def test_even(self):
        self.assertEqual(task_func([4, 1, 3, 2]), 2.5)
"""


def sandbox(request, path):
    """Sends one request and returns its response (one JSON line each way)."""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(path)
        s.sendall(json.dumps(request).encode() + b"\n")
        s.shutdown(socket.SHUT_WR)  # not a cancel: the answer still comes
        return json.loads(s.makefile("rb").readline())


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SBX_SOCKET", "/run/sandboxd.sock")
    r = sandbox({"id": "median-1", "code": CANDIDATE, "tests": TESTS, "format": "unittest",
                 "coverage": "full", "limits": {"cpu_ms": 5000, "memory_mb": 256}}, path)
    if "error" in r:
        sys.exit("sandboxd refused the request: %s" % r["error"])
    print("verdict:", r["verdict"], "| summary:", r["summary"])
    for t in r["tests"]:
        print("  %-10s %s %s" % (t["name"], t["outcome"], t["message"]))
    print("\nwhat a model would be shown:\n" + r["feedback"]["execution"])


if __name__ == "__main__":
    main()
