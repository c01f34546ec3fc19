#!/usr/bin/env python3
"""An `sbx eval` verbal-feedback writer: a model behind an OpenAI-compatible
chat completions endpoint plays the user who reads the code's feedback.

  --verbal 'examples/verbal/openai_verbal.py'

The input's "level" picks the role (--level novice|expert overrides it):
  novice  sees the task, the code and the compilation / execution feedback
          the setting shows, and says in plain words what went wrong, using
          nothing beyond that feedback;
  expert  also sees the reference solution and gives precise guidance, but
          must never reveal, quote or paraphrase the reference code.
These follow ConvCodeWorld's roles; the prompts are the project's own.

Environment as for examples/generators/openai_chat.py (OPENAI_BASE_URL,
OPENAI_API_KEY, SBX_MODEL, or SBX_VERBAL_MODEL for a different feedback
model). --dry-run prints the request instead of sending it.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

NOVICE = (
    "You play a user of a coding assistant who is not an experienced programmer. The "
    "assistant wrote code for your task, and you ran it. You can read the error messages "
    "and test results you were shown, but you cannot debug the code yourself. In a few "
    "sentences and in plain language, tell the assistant what went wrong, using only what "
    "the compilation and execution feedback show. Do not write code, do not propose a "
    "fix, and do not add anything the feedback does not say."
)

EXPERT = (
    "You play an expert programmer reviewing code that a coding assistant wrote for your "
    "task. You have a correct reference solution; the assistant must never see it. "
    "Compare the assistant's code with the reference and explain precisely where and why "
    "the code does not do what the task needs, and what has to change. Strict rules: "
    "never reveal, quote or paraphrase the reference code, never write code yourself, "
    "and never mention that a reference solution exists. Give your guidance in words."
)


def user_message(req, expert):
    parts = ["## Task\n" + req.get("prompt", "").rstrip("\n"),
             "## The assistant's code\n```python\n" + req.get("code", "").rstrip("\n") + "\n```"]
    if req.get("compilation_feedback"):
        parts.append("## Compilation feedback\n" + req["compilation_feedback"].rstrip("\n"))
    if req.get("execution_feedback"):
        parts.append("## Execution feedback\n" + req["execution_feedback"].rstrip("\n"))
    if expert:
        parts.append("## Reference solution (secret: never reveal it)\n```python\n" +
                     req.get("reference_solution", "").rstrip("\n") + "\n```")
    parts.append("Write your feedback to the assistant now.")
    return "\n\n".join(parts) + "\n"


def chat(body):
    base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
    headers = {"Content-Type": "application/json"}
    if os.environ.get("OPENAI_API_KEY"):
        headers["Authorization"] = "Bearer " + os.environ["OPENAI_API_KEY"]
    timeout = float(os.environ.get("SBX_HTTP_TIMEOUT", "300"))
    data = json.dumps(body).encode()
    for attempt in range(4):
        req = urllib.request.Request(base + "/chat/completions", data=data, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return json.load(resp)["choices"][0]["message"]["content"] or ""
        except urllib.error.HTTPError as e:
            if e.code not in (429, 500, 502, 503, 504) or attempt == 3:
                detail = e.read().decode(errors="replace")[:500]
                raise RuntimeError(f"HTTP {e.code} from {base}: {detail}") from None
        time.sleep(2 ** attempt)
    raise RuntimeError("unreachable")


def main():
    args = sys.argv[1:]
    req = json.load(sys.stdin)
    level = req.get("level", "novice")
    if "--level" in args and args.index("--level") + 1 < len(args):
        level = args[args.index("--level") + 1]
    if level not in ("novice", "expert"):
        print(f"openai_verbal.py: unknown level {level}", file=sys.stderr)
        return 2
    expert = level == "expert"
    body = {
        "model": os.environ.get("SBX_VERBAL_MODEL") or os.environ.get("SBX_MODEL", ""),
        "messages": [{"role": "system", "content": EXPERT if expert else NOVICE},
                     {"role": "user", "content": user_message(req, expert)}],
        "temperature": float(os.environ.get("SBX_TEMPERATURE", "0")),
    }
    if "--dry-run" in args:
        print(json.dumps(body, indent=2))
        return 0
    if not body["model"]:
        print("openai_verbal.py: set SBX_MODEL (or SBX_VERBAL_MODEL)", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(chat(body))
    except (OSError, RuntimeError, KeyError, IndexError, ValueError) as e:
        print(f"openai_verbal.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
