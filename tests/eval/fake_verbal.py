#!/usr/bin/env python3
"""A fake verbal-feedback writer for tests/integration/test_eval_*.c.

Usage: fake_verbal.py LOG [ok|fail]

Appends its input (one JSON line) to LOG; "ok" prints a feedback text that
names the level it was asked for, "fail" exits 2.
"""
import json
import os
import sys


def main():
    log = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "ok"
    req = json.loads(sys.stdin.read())
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (json.dumps(req, sort_keys=True) + "\n").encode())
    os.close(fd)
    if mode == "fail":
        return 2
    print(f"{req['level']} says: the function returns the wrong value for {req['task_id']}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
