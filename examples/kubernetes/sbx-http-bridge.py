#!/usr/bin/env python3
"""sbx-http-bridge: a Unix socket that speaks sandboxd's protocol (one JSON
request a line, one response a line) and passes each request to an HTTP
front's `POST /v1/run`, which takes and returns exactly that JSON. It lets
`sbx` (a Unix-socket client) reach sandboxd-http over the network, e.g. the
Kubernetes Service of examples/kubernetes/ from an eval Job's pod.

  sbx-http-bridge.py --socket /tmp/sbx.sock --url http://sandboxd:8080 \\
      [--token-file /var/run/secrets/sbx/token] [--retry-s 120] &
  sbx --socket /tmp/sbx.sock eval ...

Standard library only. One thread and one keep-alive HTTP connection per
client connection (`sbx eval --jobs N` opens N); requests on a connection
are answered in order. The front's answer is passed on as it is: a `busy`
reply comes as HTTP 504 with the daemon's JSON, which sbx retries itself.
When the front cannot be reached (a pod restarting), the request is sent
again with backoff for up to --retry-s seconds, then answered with an
`internal` error (which stops `sbx eval`; rerun it to resume). A reply
without JSON (401 for a bad token) becomes an `internal` error naming the
status. The token file holds the bearer token on its first line.
"""
import argparse
import http.client
import json
import os
import socket
import sys
import threading
import time
import urllib.parse

MAX_LINE = 16 << 20  # the daemon's default --max-request


def error(req_id, code, message):
    return {"id": req_id, "error": {"code": code, "message": message}}


class Front:
    def __init__(self, url, token, retry_s, timeout_s):
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise SystemExit("sbx-http-bridge: --url must be http[s]://HOST[:PORT][/PREFIX]")
        self.cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
        self.host, self.port = u.hostname, u.port
        self.path = u.path.rstrip("/") + "/v1/run"
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = "Bearer " + token
        self.retry_s, self.timeout_s = retry_s, timeout_s

    def connect(self):
        return self.cls(self.host, self.port, timeout=self.timeout_s)

    def call(self, conn, line, req_id):
        """POSTs one request line; returns (response object, connection)."""
        deadline = time.monotonic() + self.retry_s
        delay = 0.2
        while True:
            try:
                if conn is None:
                    conn = self.connect()
                conn.request("POST", self.path, body=line, headers=self.headers)
                r = conn.getresponse()
                body = r.read()
                if r.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
                break
            except (OSError, http.client.HTTPException) as e:
                if conn is not None:
                    conn.close()
                    conn = None
                left = deadline - time.monotonic()
                if left <= 0:
                    return error(req_id, "internal", "HTTP front %s:%s unreachable: %s" %
                                 (self.host, self.port or 80, e)), None
                time.sleep(min(delay, left))
                delay = min(delay * 2, 5.0)
        try:
            resp = json.loads(body)
        except ValueError:
            resp = None
        if not isinstance(resp, dict):
            text = body[:200].decode("utf-8", "replace").strip()
            return error(req_id, "internal", "HTTP %d from the front: %s" % (r.status, text)), conn
        if resp.get("id") is None:
            resp["id"] = req_id  # the front's own errors carry no id
        return resp, conn


def serve_client(front, client):
    conn = None
    try:
        f = client.makefile("rb")
        while True:
            line = f.readline(MAX_LINE + 1)
            if not line:
                break
            if len(line) > MAX_LINE:
                client.sendall((json.dumps(error(None, "too_large", "request line too long")) +
                                "\n").encode())
                break
            if not line.strip():
                continue
            try:
                req_id = json.loads(line).get("id")
            except (ValueError, AttributeError):
                req_id = None  # the front answers bad JSON itself
            resp, conn = front.call(conn, line.rstrip(b"\r\n"), req_id)
            client.sendall(json.dumps(resp, separators=(",", ":")).encode() + b"\n")
    except OSError:
        pass
    finally:
        if conn is not None:
            conn.close()
        client.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--socket", required=True, help="the Unix socket to serve (mode 0600)")
    ap.add_argument("--url", required=True, help="the front, e.g. http://sandboxd:8080")
    ap.add_argument("--token-file", help="bearer token on the first line")
    ap.add_argument("--retry-s", type=float, default=120.0)
    ap.add_argument("--timeout-s", type=float, default=600.0,
                    help="longest wait for one answer (a job's wall time and more)")
    a = ap.parse_args()
    token = None
    if a.token_file:
        with open(a.token_file) as f:
            token = (f.readline().split() or [""])[0]
        if not token:
            raise SystemExit("sbx-http-bridge: %s holds no token" % a.token_file)
    front = Front(a.url, token, a.retry_s, a.timeout_s)
    if os.path.exists(a.socket):
        os.unlink(a.socket)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o077)
    srv.bind(a.socket)
    os.umask(old)
    srv.listen(64)
    print("sbx-http-bridge: %s -> %s:%s%s" % (a.socket, front.host, front.port or 80, front.path),
          file=sys.stderr, flush=True)
    while True:
        client, _ = srv.accept()
        threading.Thread(target=serve_client, args=(front, client), daemon=True).start()


if __name__ == "__main__":
    main()
