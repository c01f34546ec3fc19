#!/usr/bin/env python3
# A hostile but allowed client fills the job queue from one uid: 200
# sleeping jobs pipelined on one connection against a queue of 32. Another
# uid's jobs must then still be queued (not answered `busy`) and answered
# once a worker frees up; the attacker must have been refused with `busy`
# naming --max-queued-per-peer (default: half of --queue) and hold no more
# than that many jobs waiting.
# daemon-args: --allow-uid 190021 --allow-uid 190022 --queue 32
import json
import os
import socket
import sys
import time

import client_lib as L

ATTACKER, VICTIM = 190021, 190022
QUEUE = 32  # --queue above; the per-peer default is half of it
FLOOD = 200
SLEEP_S = 4


class Lines:
    def __init__(self, s):
        self.s, self.buf = s, b""

    def send(self, obj):
        L.send(self.s, obj)

    def read(self, timeout):
        """The next answer, or None after timeout seconds (or at EOF)."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.s.settimeout(left)
            try:
                chunk = self.s.recv(65536)
            except socket.timeout:
                return None
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)


def main():
    if os.geteuid() != 0:
        print("needs root (to connect as other uids)")
        return 77
    workers = L.WORKERS
    a = Lines(L.connect_as(ATTACKER))
    for i in range(FLOOD):
        a.send({"id": f"a{i}", "code": f"import time\ntime.sleep({SLEEP_S})",
                "limits": {"wall_ms": (SLEEP_S + 10) * 1000}})
    busy, message = 0, ""
    while True:  # the refusals come at once; accepted jobs answer seconds later
        r = a.read(1.5)
        if r is None:
            break
        if r.get("error", {}).get("code") == "busy":
            busy += 1
            message = r["error"].get("message", "")
    accepted = FLOOD - busy
    # The other uid, while the attacker's jobs occupy every worker.
    v = Lines(L.connect_as(VICTIM))
    t0 = time.monotonic()
    for i in range(3):
        v.send({"id": f"v{i}", "code": f"print('victim {i}')"})
    answers = [v.read(SLEEP_S * 3 + 20) for _ in range(3)]
    waited = time.monotonic() - t0
    a.s.close()  # cancels the attacker's jobs
    refused = [r for r in answers if r and "error" in r]
    passed = [r for r in answers if r and r.get("verdict") == "pass"]
    ping = Lines(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
    ping.s.connect(L.SOCK)
    ping.send({"id": "p", "op": "ping"})
    alive = ping.read(5)
    print(f"attacker: {accepted} of {FLOOD} jobs accepted ({workers} workers), {busy} busy; "
          f"victim: {len(passed)} of 3 passed, {len(refused)} refused, in {waited:.1f} s; "
          f"refusal: {message!r}")
    per_peer = QUEUE // 2
    if L.CONTROL:  # a fabricated broken result: the victim's jobs refused
        refused, passed = answers, []
    bad = []
    if refused:
        bad.append(f"the other uid's jobs were refused: {refused[0]}")
    if len(passed) != 3:
        bad.append(f"only {len(passed)} of the other uid's 3 jobs were answered with a pass")
    if accepted > per_peer + workers:
        bad.append(f"one uid had {accepted} jobs accepted, more than {per_peer} waiting "
                   f"+ {workers} running")
    if "--max-queued-per-peer" not in message:
        bad.append(f"the attacker's refusal does not name --max-queued-per-peer: {message!r}")
    if not alive or "version" not in alive:
        bad.append("the daemon does not answer a ping")
    for b in bad:
        print("ATTACK SUCCEEDED:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
