#!/usr/bin/env python3
# A hostile but allowed client takes every connection slot it can from one
# uid: up to 4,200 connections (more than the daemon's 4,096 slots), each
# kept open once the daemon answers a ping on it. Another uid must still be
# served, the attacker must hold no more than the per-peer cap
# (--max-conn-per-peer, default 256) and be told so with `busy`, and the
# daemon must not spin.
# daemon-args: --allow-uid 190011 --allow-uid 190012
import json
import os
import resource
import socket
import sys
import time

import client_lib as L

ATTACKER, VICTIM = 190011, 190012
DEFAULT_CAP = 256  # --max-conn-per-peer's documented default
ATTEMPTS = 4200


def ask(s, line, timeout):
    """Sends one line; returns the first answer (a dict), "closed" when the
    daemon closed the connection without one, None after timeout seconds."""
    s.settimeout(timeout)
    buf = b""
    try:
        s.sendall(line.encode() + b"\n")
        while b"\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                return "closed"
            buf += chunk
    except socket.timeout:
        return None
    except OSError:
        return "closed"
    return json.loads(buf.split(b"\n", 1)[0])


def main():
    if os.geteuid() != 0:
        print("needs root (to connect as other uids)")
        return 77
    if not L.PID:
        print("SBX_DAEMON_PID is not set")
        return 77
    need = ATTEMPTS + 64
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, max(hard, need)))
    held, refused, closed, silent, message = [], 0, 0, 0, ""
    t0 = time.monotonic()
    for i in range(ATTEMPTS):
        try:
            s = L.connect_as(ATTACKER)
        except OSError as e:
            message = f"connect failed: {e}"
            break
        r = ask(s, '{"id":"p","op":"ping"}', 3)
        if isinstance(r, dict) and "version" in r:
            held.append(s)
            continue
        s.close()
        if r is None:  # the daemon no longer answers new connections
            silent += 1
            break
        refused += 1
        if isinstance(r, dict):
            message = r.get("error", {}).get("message", "")
        else:
            closed += 1
    attack_s = time.monotonic() - t0
    # Host side: another uid is served while the attacker holds its slots,
    # and the daemon is idle (no accept loop spinning).
    cpu0 = L.cpu_s()
    time.sleep(1.0)
    idle_cpu = L.cpu_s() - cpu0
    try:
        v = L.connect_as(VICTIM)
        victim = ask(v, '{"id":"v","op":"ping"}', 5)
        v.close()
    except OSError:
        victim = None
    victim_ok = isinstance(victim, dict) and "version" in victim
    print(f"attacker: {len(held)} connections served, {refused} refused ({closed} without "
          f"the error line), {silent} unanswered "
          f"in {attack_s:.1f} s; victim served: {victim_ok}; daemon CPU while idle "
          f"{idle_cpu:.2f} s/s; refusal: {message!r}")
    for s in held:
        s.close()
    cap = DEFAULT_CAP
    if L.CONTROL:  # a fabricated broken result: as if the cap were 0
        cap = 0
    bad = []
    if len(held) > cap:
        bad.append(f"one uid holds {len(held)} connections, more than the cap of {cap}")
    if refused and "--max-conn-per-peer" not in message:
        bad.append(f"the refusal does not name --max-conn-per-peer: {message!r}")
    if not refused:
        bad.append("the attacker was never refused")
    if not victim_ok:
        bad.append("another uid was not served while the attacker held its connections")
    if idle_cpu > 0.5:
        bad.append(f"the idle daemon used {idle_cpu:.2f} s of CPU in 1 s (spinning)")
    for b in bad:
        print("ATTACK SUCCEEDED:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
