#!/usr/bin/env python3
"""A fake model for tests/integration/test_eval_*.c.

Usage: fake_gen.py LOG MODES

Appends the generator input it got (one JSON line) to LOG, then answers for
the task (t/double, t/negate, t/square, t/inc in tests/eval/tasks.jsonl) as
its mode says. MODES is one mode for every task, or "t/x=mode,...,*=mode".

  right       the correct function           wrong    compiles, returns 0
  syntax      does not compile               exec     right iff execution_feedback
  verbal      right iff verbal_feedback      turn2    wrong before turn 2, then right
  fail-turn1  exit 3 at turn 1, else exec    empty    prints nothing
  sleep       sleeps 30 s (a timeout)        fail     exits 1
  slow        sleeps 0.25 s, then wrong
  pause       waits while the file LOG.pause exists (up to 30 s), then right
  seedprobe   fails every test with "SEED-PROBE <the job's PYTHONHASHSEED>"
  first3      right for the first three tests only (partial coverage sees a pass)
  badutf8     wrong, with bytes that are not UTF-8 in a comment
  even        right iff the input's "sample" (0 when absent) is even
  sampleturn  right from turn "sample" on (sample 0 at once, sample 2 at turn 2)
"""
import json
import os
import sys
import time

RIGHT = {
    "t/double": "def task_func(x):\n    return 2 * x\n",
    "t/negate": "def task_func(x):\n    return -x\n",
    "t/square": "def task_func(x):\n    return x * x\n",
    "t/inc": "def task_func(x):\n    return x + 1\n",
}
WRONG = "def task_func(x):\n    return 0\n"
SYNTAX = "def task_func(x)\n    return 0\n"


def mode_for(modes, task):
    if "=" not in modes:
        return modes
    table = dict(item.split("=", 1) for item in modes.split(","))
    return table.get(task, table.get("*", "wrong"))


def answer(code):
    # Chatter around the fence: the client must take the first python block.
    sys.stdout.write("Here you go.\n```python\n" + code + "```\nHope it helps.\n")


def main():
    log, modes = sys.argv[1], sys.argv[2]
    raw = sys.stdin.read()
    req = json.loads(raw)
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (json.dumps(req, sort_keys=True) + "\n").encode())
    os.close(fd)
    task, turn = req["task_id"], req["turn"]
    mode = mode_for(modes, task)
    right = RIGHT.get(task, WRONG)
    if mode == "fail-turn1":
        if turn == 1:
            print("fake_gen: failing on purpose", file=sys.stderr)
            return 3
        mode = "exec"
    if mode == "right":
        answer(right)
    elif mode == "wrong":
        answer(WRONG)
    elif mode == "syntax":
        answer(SYNTAX)
    elif mode == "exec":
        answer(right if req["execution_feedback"] else WRONG)
    elif mode == "verbal":
        answer(right if req["verbal_feedback"] else WRONG)
    elif mode == "turn2":
        answer(right if turn >= 2 else WRONG)
    elif mode == "even":
        answer(right if req.get("sample", 0) % 2 == 0 else WRONG)
    elif mode == "sampleturn":
        answer(right if turn >= req.get("sample", 0) else WRONG)
    elif mode == "empty":
        pass
    elif mode == "sleep":
        time.sleep(30)
    elif mode == "fail":
        return 1
    elif mode == "first3":
        answer(right.replace("def task_func", "def _right") +
               "\n\ndef task_func(x):\n    return _right(x) if x < 4 else None\n")
    elif mode == "badutf8":
        sys.stdout.flush()
        sys.stdout.buffer.write(b"```python\ndef task_func(x):\n    return 0  # \xff\xfe\xc0\n```\n")
    elif mode == "pause":
        deadline = time.monotonic() + 30
        while os.path.exists(log + ".pause") and time.monotonic() < deadline:
            time.sleep(0.05)
        answer(right)
    elif mode == "seedprobe":
        answer("import os\n\ndef task_func(x):\n"
               "    raise ValueError('SEED-PROBE ' + os.environ.get('PYTHONHASHSEED', 'none'))\n")
    elif mode == "slow":
        time.sleep(0.25)
        answer(WRONG)
    else:
        print(f"fake_gen: unknown mode {mode}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # The evaluation that asked was killed (the kill-and-resume test).
        sys.exit(1)
