#!/usr/bin/env python3
"""A local stand-in for an OpenAI-compatible endpoint, for the test of
examples/generators/openai_chat.py in tests/integration/test_eval_commands.c.

Usage: fake_openai.py PORTFILE LOG [PORT]

Listens on 127.0.0.1 (PORT, else a free port; written to PORTFILE once it
listens), appends each POST /v1/chat/completions request (its Authorization
header and JSON body) to LOG, and answers with one choice whose text holds the right
function for "Return twice x." tasks and a wrong one otherwise.
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

RIGHT = "Sure.\n```python\ndef task_func(x):\n    return 2 * x\n```\n"
WRONG = "```python\ndef task_func(x):\n    return 0\n```\n"


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps({"path": self.path,
                                "authorization": self.headers.get("Authorization"),
                                "body": body}) + "\n")
        if self.path != "/v1/chat/completions":
            self.send_error(404)
            return
        text = RIGHT if "Return twice x." in body["messages"][-1]["content"] else WRONG
        out = json.dumps({"id": "fake", "object": "chat.completion",
                          "choices": [{"index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant", "content": text}}]})
        data = out.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    PORTFILE, LOG = sys.argv[1], sys.argv[2]
    server = HTTPServer(("127.0.0.1", int(sys.argv[3]) if len(sys.argv) > 3 else 0), Handler)
    tmp = PORTFILE + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, PORTFILE)
    server.serve_forever()
