#!/usr/bin/env python3
"""An `sbx eval` generator that asks a model behind an OpenAI-compatible
chat completions endpoint (OpenAI, vLLM, llama.cpp server, ...).

  --generator 'examples/generators/openai_chat.py'

Environment: OPENAI_BASE_URL (default https://api.openai.com/v1),
OPENAI_API_KEY (sent as a bearer token when set), SBX_MODEL (the model
name; required), SBX_TEMPERATURE (default 0: greedy, as ConvCodeWorld;
the input's "temperature", from `sbx eval --temperature`, wins), SBX_MAX_TOKENS
(optional), SBX_HTTP_TIMEOUT (seconds, default 300). The input's "seed"
(`sbx eval --samples N`: one per episode) is sent as the request's seed.

Reads the generator input of docs/eval.md on stdin and prints the model's
answer; `sbx eval` takes the first ```python block of it as the code.
--dry-run prints the request it would send instead of sending it.

The user message is rendered exactly as `sbx eval` renders it into the
turn's "user_message" (client/eval_turn.c, eval_render_prompt), and the
system message is the input's "system_prompt" (the turn's
"system_message"), so the log shows what this generator sent. Only the Python standard library is used.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

SYSTEM = (
    "You are an expert Python programmer working with a user on a coding task. "
    "Write correct, self-contained Python code that does what the task asks. When the "
    "user shows you your previous code together with compiler messages, test results "
    "or their own comments, find the cause of the problem and fix the code. Always "
    "answer with the complete program in a single ```python code block."
)


def section(title, body, fenced=False):
    body = body.rstrip("\n")
    if fenced:
        body = "```python\n" + body + "\n```"
    return "\n\n## " + title + "\n" + body


def render_prompt(req):
    """The user message; byte for byte what `sbx eval` logs as user_message."""
    code = req.get("previous_code") or ""
    if code:
        text = ("Your previous code for the task below has a problem. Read the feedback, "
                "correct the code, and answer with the complete corrected program in one "
                "```python code block.")
    else:
        text = ("Write Python code that solves the task below. Answer with the complete "
                "program in one ```python code block.")
    if req.get("entry_point"):
        text += " The code must define `" + req["entry_point"] + "`."
    text += section("Task", req.get("prompt") or "")
    if code:
        text += section("Previous code", code, fenced=True)
    for title, key in (("Compilation feedback", "compilation_feedback"),
                       ("Execution feedback", "execution_feedback"),
                       ("User feedback", "verbal_feedback")):
        if req.get(key):
            text += section(title, req[key])
    return text + "\n"


def chat(body):
    """POSTs to {OPENAI_BASE_URL}/chat/completions; the first choice's text."""
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
                answer = json.load(resp)
            return answer["choices"][0]["message"]["content"] or ""
        except urllib.error.HTTPError as e:
            # Rate limits and server errors pass; anything else will not.
            if e.code not in (429, 500, 502, 503, 504) or attempt == 3:
                detail = e.read().decode(errors="replace")[:500]
                raise RuntimeError(f"HTTP {e.code} from {base}: {detail}") from None
        time.sleep(2 ** attempt)
    raise RuntimeError("unreachable")


def request_body(req):
    body = {
        "model": os.environ.get("SBX_MODEL", ""),
        # sbx eval says which system message to send (and logs it as the
        # turn's system_message); SYSTEM is the same text, for older inputs.
        "messages": [{"role": "system", "content": req.get("system_prompt") or SYSTEM},
                     {"role": "user", "content": render_prompt(req)}],
        "temperature": float(req["temperature"]) if "temperature" in req
        else float(os.environ.get("SBX_TEMPERATURE", "0")),
    }
    # --samples N: each episode's own seed, so endpoints that honour it
    # (OpenAI, vLLM) give independent samples, reproducibly.
    if "seed" in req:
        body["seed"] = int(req["seed"])
    if os.environ.get("SBX_MAX_TOKENS"):
        body["max_tokens"] = int(os.environ["SBX_MAX_TOKENS"])
    return body


def main():
    dry_run = "--dry-run" in sys.argv[1:]
    body = request_body(json.load(sys.stdin))
    if dry_run:
        print(json.dumps(body, indent=2))
        return 0
    if not body["model"]:
        print("openai_chat.py: set SBX_MODEL to the model name", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(chat(body))
    except (OSError, RuntimeError, KeyError, IndexError, ValueError) as e:
        print(f"openai_chat.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
