#!/usr/bin/env python3
# A hostile but allowed client floods the workers from one uid (10 jobs of
# 0.5 s per worker, all queued at once) to starve another uid. The other
# uid's job, sent once the flood runs, must be answered after at most about
# one job slot: no more than two of the attacker's jobs per worker may end
# before it (a global FIFO ran the whole flood first).
# daemon-args: --allow-uid 190031 --allow-uid 190032
import json
import os
import selectors
import socket
import sys
import time

import client_lib as L

ATTACKER, VICTIM = 190031, 190032
PER_WORKER = 10
SLEEP_S = 0.5


def call(obj, timeout=10):
    """One request on a fresh root connection; its answer or None."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(L.SOCK)
        s.settimeout(timeout)
        L.send(s, obj)
        buf = b""
        while b"\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                return None
            buf += chunk
        return json.loads(buf.split(b"\n", 1)[0])


def main():
    if os.geteuid() != 0:
        print("needs root (to connect as other uids)")
        return 77
    p = call({"id": "p", "op": "ping"})
    workers = p["workers"]
    flood = PER_WORKER * workers
    a, b = L.connect_as(ATTACKER), L.connect_as(VICTIM)
    for i in range(flood):
        L.send(a, {"id": f"a{i}", "code": f"import time\ntime.sleep({SLEEP_S})"})
    deadline = time.monotonic() + 20
    while call({"id": "p", "op": "ping"})["running"] < workers:
        if time.monotonic() > deadline:
            print("the flood never occupied every worker")
            return 77
        time.sleep(0.02)
    t0 = time.monotonic()
    L.send(b, {"id": "victim", "code": "print('victim')"})
    sel = selectors.DefaultSelector()
    sel.register(a, selectors.EVENT_READ, "a")
    sel.register(b, selectors.EVENT_READ, "b")
    bufs = {"a": b"", "b": b""}
    a_before, victim, waited = 0, None, None
    end = time.monotonic() + flood * SLEEP_S + 60
    while victim is None and time.monotonic() < end:
        for key, _ in sel.select(timeout=1):
            chunk = key.fileobj.recv(65536)
            if not chunk:
                victim = victim or {"error": f"{key.data}: connection closed"}
                break
            bufs[key.data] += chunk
            while b"\n" in bufs[key.data]:
                line, bufs[key.data] = bufs[key.data].split(b"\n", 1)
                if key.data == "a":
                    a_before += 1
                else:
                    victim, waited = json.loads(line), time.monotonic() - t0
    a.close()  # cancels the rest of the flood
    b.close()
    alive = call({"id": "p", "op": "ping"}, 5)
    print(f"{workers} workers, {flood} jobs of {SLEEP_S} s from the attacker; the victim's "
          f"job answered after {waited if waited is None else round(waited, 2)} s, "
          f"{a_before} of the attacker's jobs ended before it")
    allowed = 2 * workers
    if L.CONTROL:  # a fabricated broken result: as if the whole flood ran first
        a_before = flood
    bad = []
    if not victim or victim.get("verdict") != "pass":
        bad.append(f"the victim's job did not pass: {victim}")
    if a_before > allowed:
        bad.append(f"{a_before} of the attacker's jobs ended before the victim's one "
                   f"(at most {allowed}: about one job slot per worker)")
    if not alive or "version" not in alive:
        bad.append("the daemon does not answer a ping")
    for x in bad:
        print("ATTACK SUCCEEDED:", x)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
