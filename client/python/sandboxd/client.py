"""Client: runs jobs on one or more sandboxd endpoints.

Delivery. Every request gets exactly one Result, and a result is never
delivered twice: a transport matches an answer only to the one send it
belongs to, and a send whose endpoint failed before answering (the
connection closed, was reset or refused, or the endpoint stopped answering
pings) is abandoned for good before the request is sent again, to another
endpoint when one is up. So a job whose endpoint died mid-run is *re-run*
elsewhere. Jobs are idempotent re-runs: nothing a job does outlives its jail
(its files live in the job's tmpfs, its processes die with it), so running
it twice costs time, not correctness; a job that is not deterministic (time,
randomness without `seed`) may give a different answer the second time, and
the one delivered is whichever run finished.

Overload. A `busy` answer (an HTTP 504 from the front) is retried with
exponential backoff and jitter (at least the front's Retry-After), for up to
`busy_timeout` seconds per request; then the Result carries error `busy`.
"""
import base64
import json
import os
import queue
import random
import threading
import time
import weakref
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Union

from .results import Error, Limits, Ping, Result
from .transport import (ConnectionBusy, EndpointDown, HttpTransport, SocketTransport,
                        Unauthorized)

DEFAULT_SOCKET = "/run/sandboxd.sock"

# run()'s keyword arguments that are protocol fields under the same name.
_FIELDS = ("tests", "format", "stdin", "files", "seed", "entry_point", "coverage",
           "partial_tests", "test_timeout_ms", "float_tolerance", "fail_fast", "isolation",
           "policy", "tenant", "timing")


class SandboxdError(Exception):
    """A request the daemon (or the client, for `unavailable` and `busy`)
    refused: `code` and `message` as in docs/protocol.md's error table."""

    def __init__(self, code: str, message: str, result: Optional[Result] = None):
        super().__init__("%s: %s" % (code, message))
        self.code = code
        self.message = message
        self.result = result


def build_request(code: str, tests=None, format: Optional[str] = None,
                  limits: Union[None, Limits, Dict[str, int]] = None,
                  files: Optional[Dict[str, str]] = None, stdin: Optional[str] = None,
                  seed: Optional[int] = None, **fields: Any) -> Dict[str, Any]:
    """The protocol's request object for a run (without "id"). Keyword
    arguments named like protocol fields (entry_point, coverage, isolation,
    timing, ...) go in as they are, so fields this client does not know yet
    can be sent too (`fetch_files=[...]`). `tests` for `stdio` may be
    (input, output) pairs; a `files` value may be bytes."""
    req: Dict[str, Any] = {"code": code}
    fields.update(tests=tests, format=format, files=files, stdin=stdin, seed=seed)
    if isinstance(limits, Limits):
        limits = limits.to_dict()
    if limits:
        req["limits"] = dict(limits)
    for k, v in fields.items():
        if v is not None:
            req[k] = v
    if isinstance(req.get("files"), dict):
        # bytes go as {"base64": ...} (the daemon's binary files, with the
        # HTTP front's branch); text as the string itself.
        req["files"] = {k: {"base64": base64.b64encode(bytes(v)).decode()}
                        if isinstance(v, (bytes, bytearray)) else v
                        for k, v in req["files"].items()}
    if req.get("format") == "stdio" and isinstance(req.get("tests"), (list, tuple)):
        req["tests"] = [{"input": t[0], "output": t[1]} if isinstance(t, (list, tuple)) else t
                        for t in req["tests"]]
    return req


class _Endpoint:
    def __init__(self, transport):
        self.t = transport
        self.name = transport.name
        self.inflight = 0
        self.down_until = 0.0
        self.failures = 0
        self.weight = 1  # the daemon's worker count, once a ping told it
        self.pinged = False
        self.last_progress = time.monotonic()


class Client:
    """A client of one or more sandboxd endpoints.

    Endpoints: `socket=PATH` (default /run/sandboxd.sock, or $SBX_SOCKET),
    `url=URL` (the sandboxd-http front), or several: `sockets=[...]`,
    `urls=[...]` (both may be given). `token` is sent as a bearer token to
    HTTP endpoints. Load is spread by in-flight requests per daemon worker;
    an endpoint that fails is left alone for a while (doubling from
    `retry_down` to 30 s) and its requests go elsewhere.

    Liveness: when an endpoint with requests in flight has sent nothing for
    `liveness` seconds, the client pings it on a fresh connection; no answer
    within `ping_timeout` and its connections are broken, its requests
    re-sent elsewhere. A request that finds no endpoint up for
    `unavailable_timeout` seconds fails with error `unavailable`.
    """

    def __init__(self, socket: Optional[str] = None, url: Optional[str] = None,
                 urls: Optional[Sequence[str]] = None, sockets: Optional[Sequence[str]] = None,
                 token: Optional[str] = None, busy_timeout: float = 600.0,
                 backoff_base: float = 0.05, backoff_max: float = 2.0,
                 unavailable_timeout: float = 60.0, retry_down: float = 0.5,
                 liveness: float = 30.0, ping_timeout: float = 5.0,
                 max_request_bytes: int = 16 << 20):
        paths = ([socket] if socket else []) + list(sockets or [])
        addrs = ([url] if url else []) + list(urls or [])
        if not paths and not addrs:
            paths = [os.environ.get("SBX_SOCKET") or DEFAULT_SOCKET]
        self._eps: List[_Endpoint] = [_Endpoint(SocketTransport(p)) for p in paths]
        self._eps += [_Endpoint(HttpTransport(u, token)) for u in addrs]
        self.busy_timeout = busy_timeout
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.unavailable_timeout = unavailable_timeout
        self.retry_down = retry_down
        self.liveness = liveness
        self.ping_timeout = ping_timeout
        self.max_request_bytes = max_request_bytes
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._rr = 0
        self._closed = False
        self._watch = threading.Thread(target=Client._watchdog, args=(weakref.ref(self),),
                                       daemon=True, name="sandboxd-watchdog")
        self._watch.start()

    # -- endpoints -------------------------------------------------------

    @property
    def endpoints(self) -> List[str]:
        return [e.name for e in self._eps]

    def _choose(self, deadline: float) -> _Endpoint:
        """The endpoint up with the fewest requests in flight per worker
        (round-robin among equals); waits while every one is down."""
        with self._cond:
            while True:
                if self._closed:
                    raise EndpointDown("client closed")
                now = time.monotonic()
                up = [e for e in self._eps if e.down_until <= now]
                if up:
                    self._rr += 1
                    n = len(up)
                    best = min(range(n), key=lambda i: (up[i].inflight / up[i].weight,
                                                         (i - self._rr) % n))
                    e = up[best]
                    e.inflight += 1
                    return e
                if now >= deadline:
                    raise EndpointDown("no endpoint answered for %.0f s" %
                                       self.unavailable_timeout)
                wake = min(min(e.down_until for e in self._eps), deadline)
                self._cond.wait(max(0.001, wake - now))

    def _release(self, e: _Endpoint, failed: Optional[str]) -> None:
        with self._cond:
            e.inflight -= 1
            if failed is None:
                e.failures = 0
                e.last_progress = time.monotonic()
            elif e.down_until <= time.monotonic():
                e.failures += 1
                e.down_until = time.monotonic() + min(30.0, self.retry_down *
                                                      2 ** (e.failures - 1))
            self._cond.notify_all()

    @staticmethod
    def _watchdog(ref) -> None:
        """Holds the client only weakly, so a client nobody closed can still
        be collected (its watchdog then ends)."""
        while True:
            c = ref()
            if c is None or c._closed:
                return
            period = min(1.0, c.liveness / 4)
            c._check_liveness()
            del c
            time.sleep(period)

    def _check_liveness(self) -> None:
        now = time.monotonic()
        for e in list(self._eps):
            quiet = now - max(e.last_progress, e.t.last_rx)
            if e.inflight == 0 or quiet < self.liveness:
                continue
            try:
                e.t.ping(self.ping_timeout)
            except Unauthorized:
                pass  # it answered
            except EndpointDown as err:
                with self._cond:
                    e.failures += 1
                    e.down_until = time.monotonic() + min(30.0, self.retry_down *
                                                          2 ** (e.failures - 1))
                e.t.abort("stopped answering (%s)" % err)
                continue
            e.last_progress = time.monotonic()

    def ping(self) -> List[Ping]:
        """Pings every endpoint at once (a fresh connection each): one Ping per
        endpoint that answered, in endpoint order; the worker counts they
        report weight the load spread."""
        got: List[Optional[Ping]] = [None] * len(self._eps)

        def one(i, e):
            try:
                got[i] = Ping.from_dict(e.t.ping(self.ping_timeout), e.name)
            except (EndpointDown, Unauthorized):
                return
            if got[i].workers > 0:
                e.weight = got[i].workers
                e.pinged = True

        threads = [threading.Thread(target=one, args=(i, e), daemon=True)
                   for i, e in enumerate(self._eps)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return [p for p in got if p is not None]

    def _backoff(self, n: int, retry_after: Optional[float]) -> float:
        """Equal jitter: half the exponential step, plus a random part of the
        other half; never below the front's Retry-After."""
        step = min(self.backoff_max, self.backoff_base * (2 ** min(n, 30)))
        d = step / 2 + random.uniform(0, step / 2)
        return max(d, retry_after or 0.0)

    # -- running ---------------------------------------------------------

    def execute(self, request: Dict[str, Any], request_id: Optional[str] = None) -> Result:
        """Runs one protocol request object (its "id" is kept as the Result's
        request_id, never sent); returns its Result, error or not."""
        req = dict(request)
        rid = req.pop("id", None) if request_id is None else request_id
        req.pop("id", None)
        rid = str(rid) if rid is not None else ""
        if "limits" in req and isinstance(req["limits"], Limits):
            req["limits"] = req["limits"].to_dict()
        size = len(json.dumps(req, ensure_ascii=False).encode())
        if size > self.max_request_bytes:
            return Result(request_id=rid, error=Error(
                "too_large", "request of %d bytes is over max_request_bytes (%d)" %
                (size, self.max_request_bytes)))
        attempts = busy = 0
        start = time.monotonic()
        deadline = start + self.unavailable_timeout
        last_down = ""
        while True:
            try:
                ep = self._choose(deadline)
            except EndpointDown as e:
                msg = str(e) + ("; last failure: " + last_down if last_down else "")
                return Result(request_id=rid, error=Error("unavailable", msg), attempts=attempts)
            attempts += 1
            try:
                resp, retry_after = ep.t.call(req)
            except ConnectionBusy as e:  # busy, for the connection: not down
                resp, retry_after = {"error": {"code": "busy", "message": str(e)}}, None
            except EndpointDown as e:
                last_down = str(e)
                self._release(ep, last_down)
                continue
            except Unauthorized as e:
                self._release(ep, None)
                return Result(request_id=rid, error=Error("unauthorized", str(e)),
                              endpoint=ep.name, attempts=attempts)
            err = resp.get("error")
            code = err.get("code") if isinstance(err, dict) else None
            if code == "shutting_down":
                last_down = "%s: shutting down" % ep.name
                self._release(ep, last_down)
                continue
            self._release(ep, None)
            deadline = time.monotonic() + self.unavailable_timeout
            if code == "busy":
                busy += 1
                if time.monotonic() - start > self.busy_timeout:
                    return Result.from_dict(resp, rid, ep.name, attempts)
                time.sleep(self._backoff(busy, retry_after))
                continue
            return Result.from_dict(resp, rid, ep.name, attempts)

    def run(self, code: str, tests=None, format: Optional[str] = None,
            limits: Union[None, Limits, Dict[str, int]] = None,
            files: Optional[Dict[str, str]] = None, stdin: Optional[str] = None,
            seed: Optional[int] = None, id: Optional[str] = None, **fields: Any) -> Result:
        """Runs one job and returns its Result; a refused request (any error
        response, or no endpoint) raises SandboxdError. Keyword arguments
        are protocol fields (docs/protocol.md), e.g. entry_point="f",
        coverage="partial", isolation="process", timing=True."""
        r = self.execute(build_request(code, tests, format, limits, files, stdin, seed,
                                       **fields), id)
        if r.error is not None:
            raise SandboxdError(r.error.code, r.error.message, r)
        return r

    def run_many(self, requests: Iterable[Dict[str, Any]],
                 concurrency: Optional[int] = None) -> Iterator[Result]:
        """Runs protocol request objects (dicts as build_request makes them,
        with an optional "id"), at most `concurrency` at a time, and yields
        each Result as it finishes (in any order; `Result.index` is the
        request's position in `requests`, `request_id` its "id"). Errors are
        yielded as Results with `error` set, never raised. The input is read
        lazily; closing the generator early stops sending new requests."""
        if not any(e.pinged for e in self._eps):
            self.ping()  # the worker counts weight the spread
        if concurrency is None:
            concurrency = self.default_concurrency()
        concurrency = max(1, int(concurrency))
        src = iter(enumerate(requests))
        src_lock = threading.Lock()
        out: "queue.Queue" = queue.Queue()
        stop = threading.Event()

        def worker():
            try:
                while not stop.is_set():
                    with src_lock:
                        try:
                            i, req = next(src)
                        except StopIteration:
                            return
                    try:
                        r = self.execute(req)
                    except Exception as e:  # a malformed request object
                        r = Result(request_id=str(req.get("id", "")) if isinstance(req, dict)
                                   else "", error=Error("client", repr(e)))
                    r.index = i
                    out.put(r)
            finally:
                out.put(None)

        threads = [threading.Thread(target=worker, daemon=True, name="sandboxd-run-many")
                   for _ in range(concurrency)]
        for t in threads:
            t.start()
        done = 0
        try:
            while done < len(threads):
                r = out.get()
                if r is None:
                    done += 1
                else:
                    yield r
        finally:
            stop.set()

    def default_concurrency(self) -> int:
        """Twice the workers of the endpoints (from a ping; 2 for one that
        does not answer), so every worker has a job waiting behind it."""
        if not any(e.pinged for e in self._eps):
            self.ping()
        return max(2, 2 * sum(max(1, e.weight) for e in self._eps))

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        for e in self._eps:
            e.t.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
