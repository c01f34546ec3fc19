"""A test double of the sandboxd-http front (never shipped): just enough of
its native endpoints for the client's HTTP transport. `POST /v1/run` takes
and returns the socket protocol's JSON, forwarded over a Unix connection of
its own per HTTP connection; a `busy` answer becomes HTTP 504 with
Retry-After; with a token, requests without `Authorization: Bearer TOKEN`
get 401; `GET /v1/ping` forwards a ping. It counts the TCP connections it
accepted, so keep-alive can be checked."""
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        with self.server.lock:
            self.server.connections += 1
        self.upstream = None

    def finish(self):
        super().finish()
        if self.upstream:
            self.upstream[0].close()

    def log_message(self, *args):
        pass

    def _send(self, status, obj, extra=None):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _forward(self, req):
        if self.upstream is None:
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(self.server.daemon_socket)
            except OSError:
                s.close()
                raise
            self.upstream = (s, s.makefile("rb"))
        s, f = self.upstream
        s.sendall(json.dumps(req).encode() + b"\n")
        line = f.readline()
        if not line:
            raise OSError("daemon closed the connection")
        return json.loads(line)

    def _authorized(self):
        tok = self.server.token
        if tok and self.headers.get("Authorization") != "Bearer " + tok:
            self._send(401, {"error": {"code": "unauthorized", "message": "bad token"}})
            return False
        return True

    def do_GET(self):
        if not self._authorized():
            return
        if self.path != "/v1/ping":
            return self._send(404, {"error": {"code": "not_found", "message": self.path}})
        try:
            self._send(200, self._forward({"id": "ping", "op": "ping"}))
        except OSError as e:
            self._send(502, {"error": {"code": "bad_gateway", "message": str(e)}})

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        if not self._authorized():
            return
        if self.path != "/v1/run":
            return self._send(404, {"error": {"code": "not_found", "message": self.path}})
        try:
            req = json.loads(body)
        except ValueError:
            return self._send(400, {"id": None, "error": {"code": "bad_json", "message": "?"}})
        with self.server.lock:
            self.server.requests += 1
        try:
            resp = self._forward(req)
        except OSError as e:
            return self._send(502, {"error": {"code": "bad_gateway", "message": str(e)}})
        err = resp.get("error")
        if isinstance(err, dict) and err.get("code") == "busy":
            with self.server.lock:
                self.server.busy += 1
            return self._send(504, resp, {"Retry-After": self.server.retry_after})
        self._send(400 if err else 200, resp)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a client that broke its connection (the tests do, on purpose)


class FakeFront:
    def __init__(self, daemon_socket, token=None, retry_after="0"):
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.daemon_socket = daemon_socket
        self.httpd.token = token
        self.httpd.retry_after = retry_after
        self.httpd.lock = threading.Lock()
        self.httpd.connections = self.httpd.requests = self.httpd.busy = 0
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
