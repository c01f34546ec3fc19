#!/usr/bin/env python3
"""A deterministic stand-in for a model, for demos and tests of `sbx eval`.

Usage: replay.py ATTEMPTS.json   (as --generator 'examples/generators/replay.py FILE')

ATTEMPTS.json maps a task id to a list of answers (the text a model would
print, usually with a ```python block). For the generator input on stdin it
prints answer min(turn, last): a task can be wrong at turn 0 and fixed at
turn 1 or 2, or never fixed. It ignores the feedback, so what a setting
changes is only whether the loop asks again (see docs/eval.md).
"""
import json
import sys


def main():
    if len(sys.argv) != 2:
        print("usage: replay.py ATTEMPTS.json", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        attempts = json.load(f)
    request = json.load(sys.stdin)
    answers = attempts.get(request["task_id"])
    if not answers:
        print(f"replay.py: no attempts for {request['task_id']}", file=sys.stderr)
        return 1
    sys.stdout.write(answers[min(int(request["turn"]), len(answers) - 1)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
