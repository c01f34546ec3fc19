"""make bench, the HTTP path: trivial jobs through sandboxd-http's /v1/run
from 64 concurrent keep-alive clients, against the same jobs on the daemon's
Unix socket with 64 in flight, on one daemon (started with the front, as
tests/http/ start them). Requests/s each, and the socket's rate over the
front's as the overhead ratio."""
import http.client
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "http"))
from bench_daemon import Conn  # noqa: E402

CONCURRENCY = 64


def _http_rate(port, n):
    done, lock, busy = [0], threading.Lock(), [0]
    per = [n // CONCURRENCY + (1 if i < n % CONCURRENCY else 0) for i in range(CONCURRENCY)]

    def client(k):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for j in range(per[k]):
            body = json.dumps({"id": "b%d-%d" % (k, j), "code": "pass\n"})
            while True:
                c.request("POST", "/v1/run", body, {"Content-Type": "application/json"})
                r = c.getresponse()
                r.read()
                if r.status != 504:
                    break
                with lock:
                    busy[0] += 1
                time.sleep(0.01)
            with lock:
                done[0] += 1
        c.close()

    t0 = time.perf_counter()
    ts = [threading.Thread(target=client, args=(k,)) for k in range(CONCURRENCY)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return done[0] / (time.perf_counter() - t0), busy[0]


def _socket_rate(sock, n):
    with Conn(sock) as c:
        reqs = [{"id": "s%d" % i, "code": "pass\n"} for i in range(n)]
        out, secs, busy = c.pipeline(reqs, CONCURRENCY)
    return len(out) / secs, busy


def http_section(build, n, rounds):
    os.environ.setdefault("SBX_BUILD", os.path.abspath(build))
    from http_support import Stack
    st = Stack(workers=2)
    try:
        res = {"jobs": n, "rounds": rounds, "concurrency": CONCURRENCY, "socket_rps": [],
               "http_rps": [], "ratio": [], "busy": 0}
        for k in range(rounds):  # interleaved, the order alternating
            if k % 2:
                h, b2 = _http_rate(st.port, n)
                s, b1 = _socket_rate(st.sock, n)
            else:
                s, b1 = _socket_rate(st.sock, n)
                h, b2 = _http_rate(st.port, n)
            res["socket_rps"].append(round(s, 2))
            res["http_rps"].append(round(h, 2))
            res["ratio"].append(round(s / h, 3))
            res["busy"] += b1 + b2
        return res
    finally:
        st.close()
