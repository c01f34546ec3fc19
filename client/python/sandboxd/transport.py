"""The two ways to reach a daemon: its Unix socket, and HTTP through the
`sandboxd-http` front (`POST /v1/run` carries exactly the socket's JSON).

A transport sends one request and returns the response object. It gives
every request a wire id of its own (never the caller's id), so a caller may
reuse ids, and an answer can only ever be matched to the one request that
was sent with its id on that connection. A transport raises EndpointDown when
the connection failed before the answer came: the request may or may not
have run, and the caller may send it elsewhere. Nothing is ever delivered
for a request after EndpointDown was raised for it.
"""
import http.client
import itertools
import json
import os
import socket
import threading
import time
import urllib.parse
from typing import Any, Dict, Optional, Tuple


class EndpointDown(Exception):
    """The endpoint failed (refused, closed, reset, timed out, or answered
    with a server error) before answering this request."""


class Unauthorized(Exception):
    """The HTTP front refused the bearer token (401)."""


class ConnectionBusy(EndpointDown):
    """The daemon answered `busy` for the connection as a whole (no request
    id) and closed it, or a request line it could not take: the requests
    on it are to be sent again after a backoff, the endpoint is not down."""


_ids = itertools.count(1)


def wire_id() -> str:
    """A request id unique within this process (the pid tells two processes
    sharing a front apart in its logs)."""
    return "py%d-%d" % (os.getpid(), next(_ids))


class _Conn:
    """One socket connection and the requests waiting for their answers on it."""

    def __init__(self, sock):
        self.sock = sock
        self.pending: Dict[str, "_Slot"] = {}
        self.dead: Optional[str] = None
        self.conn_error: Optional[Dict[str, Any]] = None


class _Slot:
    __slots__ = ("event", "response", "failure", "size", "busy")

    def __init__(self, size: int):
        self.event = threading.Event()
        self.response: Optional[Dict[str, Any]] = None
        self.failure: Optional[str] = None
        self.size = size
        self.busy = False


class SocketTransport:
    """JSON lines over the daemon's Unix socket: one connection carries every
    request in flight; a reader thread hands each answer to the request whose
    wire id it echoes (answers come in any order)."""

    def __init__(self, path: str, connect_timeout: float = 5.0):
        self.path = path
        self.name = "unix:" + path
        self.connect_timeout = connect_timeout
        self.last_rx = time.monotonic()
        self._lock = threading.Lock()
        self._wlock = threading.Lock()
        self._conn: Optional[_Conn] = None
        self._closed = False

    def _connect(self) -> _Conn:
        with self._lock:
            if self._closed:
                raise EndpointDown("%s: client closed" % self.name)
            if self._conn is not None and self._conn.dead is None:
                return self._conn
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(self.connect_timeout)
            try:
                s.connect(self.path)
            except OSError as e:
                s.close()
                raise EndpointDown("%s: connect: %s" % (self.name, e)) from None
            s.settimeout(None)
            conn = _Conn(s)
            self._conn = conn
            self.last_rx = time.monotonic()
            threading.Thread(target=self._reader, args=(conn,), daemon=True,
                             name="sandboxd-reader").start()
            return conn

    def _reader(self, conn: _Conn) -> None:
        reason = "connection closed by the daemon"
        f = None
        try:
            f = conn.sock.makefile("rb")
            for line in f:
                self.last_rx = time.monotonic()
                try:
                    obj = json.loads(line)
                except ValueError:
                    reason = "the daemon sent a line that is not JSON"
                    break
                if not isinstance(obj, dict):
                    continue
                rid = obj.get("id")
                err = obj.get("error")
                kill = None
                with self._lock:
                    slot = conn.pending.pop(rid, None) if isinstance(rid, str) else None
                    if slot is None and rid is None and isinstance(err, dict):
                        slot, kill = self._unmatched(conn, err)
                if slot is not None:
                    slot.response = dict(obj, id=rid) if rid is not None else obj
                    slot.event.set()
                if kill:
                    reason = kill
                    break
        except OSError as e:
            reason = "read: %s" % e
        self._kill(conn, reason)
        with self._wlock:  # no writer holds the descriptor while it closes
            if f is not None:
                f.close()
            conn.sock.close()

    @staticmethod
    def _unmatched(conn: _Conn, err: Dict[str, Any]):
        """An error without a request id (under self._lock). `too_large`: a
        line past the daemon's --max-request, which it skips; the longest
        line waiting is that one (any longer one is past the limit too), so
        it gets the error. Anything else (`busy` for a line that did not fit
        the buffer budget, or before the daemon closes the connection;
        `forbidden`) cannot be matched: the connection is given up (the
        daemon cancels its jobs) and its requests are sent again, so none
        waits forever. Returns (slot to answer, reason to close or None)."""
        if err.get("code") == "too_large" and conn.pending:
            rid = max(conn.pending, key=lambda k: conn.pending[k].size)
            return conn.pending.pop(rid), None
        conn.conn_error = err
        if err.get("code") == "busy":
            for slot in conn.pending.values():
                slot.busy = True
        return None, "the daemon refused a line it could not tell the id of"

    def _kill(self, conn: _Conn, reason: str) -> None:
        """Fails every request waiting on conn; closing the connection makes
        the daemon cancel their jobs, so none of them can answer later."""
        with self._lock:
            if conn.dead is None:
                ce = conn.conn_error
                conn.dead = reason if not ce else "%s (%s: %s)" % (
                    reason, ce.get("code"), ce.get("message"))
            pending, conn.pending = conn.pending, {}
            if self._conn is conn:
                self._conn = None
        try:
            conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        for slot in pending.values():
            slot.failure = conn.dead
            slot.event.set()

    def call(self, request: Dict[str, Any]) -> Tuple[Dict[str, Any], Optional[float]]:
        """Sends request (a dict without "id") and waits for its answer.
        Returns (response, None): Retry-After exists only over HTTP."""
        conn = self._connect()
        rid = wire_id()
        line = (json.dumps(dict(request, id=rid), ensure_ascii=False) + "\n").encode()
        slot = _Slot(len(line))
        with self._lock:
            if conn.dead is not None:
                raise EndpointDown("%s: %s" % (self.name, conn.dead))
            conn.pending[rid] = slot
        try:
            with self._wlock:
                conn.sock.sendall(line)
        except OSError as e:
            self._kill(conn, "write: %s" % e)
        slot.event.wait()
        if slot.response is None:
            if slot.busy:
                raise ConnectionBusy("%s: %s" % (self.name, slot.failure))
            raise EndpointDown("%s: %s" % (self.name, slot.failure))
        return slot.response, None

    def in_flight(self) -> int:
        c = self._conn
        return len(c.pending) if c else 0

    def ping(self, timeout: float) -> Dict[str, Any]:
        """A ping on a connection of its own, so a stuck request connection
        cannot answer for the daemon."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(timeout)
                s.connect(self.path)
                s.sendall(b'{"id":"ping","op":"ping"}\n')
                line = s.makefile("rb").readline()
        except OSError as e:
            raise EndpointDown("%s: ping: %s" % (self.name, e)) from None
        try:
            obj = json.loads(line)
        except ValueError:
            raise EndpointDown("%s: ping: no answer" % self.name) from None
        if not isinstance(obj, dict) or "error" in obj:
            raise EndpointDown("%s: ping: %r" % (self.name, obj))
        return obj

    def abort(self, reason: str) -> None:
        c = self._conn
        if c is not None:
            self._kill(c, reason)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self.abort("client closed")


class HttpTransport:
    """`POST /v1/run` on the sandboxd-http front, keep-alive connections from a
    pool (one request at a time on each, as HTTP/1.1 without pipelining)."""

    def __init__(self, url: str, token: Optional[str] = None, connect_timeout: float = 5.0):
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError("not an http(s) URL: %r" % url)
        self.name = url
        self.https = u.scheme == "https"
        self.host = u.hostname
        self.port = u.port or (443 if self.https else 80)
        self.prefix = u.path.rstrip("/")
        self.token = token
        self.connect_timeout = connect_timeout
        self.last_rx = time.monotonic()
        self._lock = threading.Lock()
        self._idle = []
        self._busy = set()
        self._closed = False

    def _new(self, timeout=None):
        cls = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
        return cls(self.host, self.port, timeout=timeout or self.connect_timeout)

    def _headers(self, body: bool) -> Dict[str, str]:
        h = {"Accept": "application/json"}
        if body:
            h["Content-Type"] = "application/json"
        if self.token:
            h["Authorization"] = "Bearer " + self.token
        return h

    def _exchange(self, conn, method: str, path: str, body: Optional[bytes]):
        conn.request(method, self.prefix + path, body=body, headers=self._headers(body is not None))
        if conn.sock is not None:
            conn.sock.settimeout(None)  # a job may take long: liveness is the client's ping
        resp = conn.getresponse()
        data = resp.read()
        return resp, data

    def call(self, request: Dict[str, Any]) -> Tuple[Dict[str, Any], Optional[float]]:
        rid = wire_id()
        body = json.dumps(dict(request, id=rid), ensure_ascii=False).encode()
        for attempt in range(2):
            with self._lock:
                if self._closed:
                    raise EndpointDown("%s: client closed" % self.name)
                reused = bool(self._idle)
                conn = self._idle.pop() if reused else self._new()
                self._busy.add(conn)
            try:
                resp, data = self._exchange(conn, "POST", "/v1/run", body)
            except (OSError, http.client.HTTPException) as e:
                with self._lock:
                    self._busy.discard(conn)
                conn.close()
                # A kept-alive connection the front closed while idle: one
                # more try on a fresh one before calling the endpoint down.
                if reused and attempt == 0 and isinstance(
                        e, (http.client.RemoteDisconnected, BrokenPipeError,
                            ConnectionResetError)):
                    continue
                raise EndpointDown("%s: %s" % (self.name, e or type(e).__name__)) from None
            self.last_rx = time.monotonic()
            with self._lock:
                self._busy.discard(conn)
                if resp.will_close or self._closed:
                    conn.close()
                else:
                    self._idle.append(conn)
            return self._decode(resp, data, rid)
        raise EndpointDown("%s: connection lost" % self.name)

    def _decode(self, resp, data: bytes, rid: str):
        if resp.status == 401:
            raise Unauthorized("%s: 401 %s" % (self.name, data[:200].decode("utf-8", "replace")))
        if resp.status >= 500 and resp.status != 504:
            raise EndpointDown("%s: HTTP %d" % (self.name, resp.status))
        try:
            obj = json.loads(data)
        except ValueError:
            obj = None
        retry = None
        if resp.status == 504:
            ra = resp.getheader("Retry-After")
            try:
                retry = float(ra) if ra is not None else None
            except ValueError:
                retry = None
            if not (isinstance(obj, dict) and isinstance(obj.get("error"), dict)):
                obj = {"error": {"code": "busy", "message": "HTTP 504 from the front"}}
        if not isinstance(obj, dict):
            obj = {"error": {"code": "http_%d" % resp.status,
                             "message": data[:200].decode("utf-8", "replace")}}
        if resp.status != 200 and not isinstance(obj.get("error"), dict):
            obj = {"error": {"code": "http_%d" % resp.status, "message": json.dumps(obj)[:200]}}
        obj["id"] = rid
        return obj, retry

    def in_flight(self) -> int:
        return len(self._busy)

    def ping(self, timeout: float) -> Dict[str, Any]:
        conn = self._new(timeout)
        try:
            conn.request("GET", self.prefix + "/v1/ping", headers=self._headers(False))
            resp = conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException) as e:
            raise EndpointDown("%s: ping: %s" % (self.name, e)) from None
        finally:
            conn.close()
        if resp.status == 401:
            raise Unauthorized("%s: 401 on /v1/ping" % self.name)
        try:
            obj = json.loads(data)
        except ValueError:
            obj = None
        if resp.status != 200 or not isinstance(obj, dict) or "error" in obj:
            raise EndpointDown("%s: ping: HTTP %d" % (self.name, resp.status))
        return obj

    def abort(self, reason: str) -> None:
        """Breaks every connection in use: their requests raise EndpointDown."""
        with self._lock:
            busy = list(self._busy)
            idle, self._idle = self._idle, []
        for c in busy:
            try:
                if c.sock is not None:
                    c.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for c in idle:
            c.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self.abort("client closed")
