# A second sandboxd started on the socket path of a live one (the same
# binary, its own state dir): before issue 10 item 8 it removed the live
# socket, bound its own and removed the first daemon's job cgroups (they
# are named after the socket). Now it must refuse to start and name the
# reason, and the first daemon must keep its socket and go on serving.
# Host-side checks: the second daemon exited non-zero saying "another
# sandboxd is serving"; the socket's inode is unchanged; a new connection's
# peer (SO_PEERCRED) is still the first daemon, which answers a ping.
# The script runs on the host as root (it starts a daemon).
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile

SOCK = os.environ.get("SBX_SOCKET")
PID = int(os.environ.get("SBX_DAEMON_PID", "0") or 0)
UID_BASE = int(os.environ.get("SBX_UID_BASE", "0") or 0)
CONTROL = os.environ.get("SBX_HOSTILE_CONTROL") == "1"


def peer_and_ping(path):
    """(peer pid, ping answer) of a fresh connection to path."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    pid, _, _ = struct.unpack("3i", s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    s.sendall(b'{"id":"client-second-daemon","op":"ping"}\n')
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    s.close()
    return pid, json.loads(buf) if buf else None


def main():
    if not SOCK or PID <= 0:
        print("needs SBX_SOCKET and SBX_DAEMON_PID")
        return 77
    if os.geteuid() != 0:
        print("must run as root to start a second daemon")
        return 77
    binary = os.readlink("/proc/%d/exe" % PID)
    ino_before = os.lstat(SOCK).st_ino
    tmp = tempfile.mkdtemp(prefix="sbx-second-")
    second = subprocess.Popen(
        [binary, "--socket", SOCK, "--state-dir", os.path.join(tmp, "state"), "--workers",
         "1", "--uid-base", str((UID_BASE or 300000) + 100000), "--no-cgroups"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        out, _ = second.communicate(timeout=15)
        rc = second.returncode
    except subprocess.TimeoutExpired:
        # It serves: the attack went through. Stop it (it is ours).
        second.kill()
        out, _ = second.communicate()
        rc = None
    shutil.rmtree(tmp, ignore_errors=True)
    out = out.decode(errors="replace")
    problems = []
    if rc in (None, 0):
        problems.append("the second daemon started (exit %s)" % rc)
    if "another sandboxd is serving" not in out:
        problems.append("its output does not say another sandboxd is serving")
    try:
        ino_after = os.lstat(SOCK).st_ino
    except OSError as e:
        ino_after = None
        problems.append("the socket is gone: %s" % e)
    if CONTROL:
        ino_after = -1  # a fabricated replacement: the check below must fire
    if ino_after is not None and ino_after != ino_before:
        problems.append("the socket was replaced (inode %s -> %s)" % (ino_before, ino_after))
    try:
        peer, pong = peer_and_ping(SOCK)
        if peer != PID:
            problems.append("the socket is served by pid %d, not the first daemon %d"
                            % (peer, PID))
        if not pong or "version" not in pong:
            problems.append("the first daemon does not answer a ping: %r" % pong)
    except OSError as e:
        problems.append("cannot reach the first daemon: %s" % e)
    if problems:
        print("attack succeeded: " + "; ".join(problems))
        print("second daemon output:\n" + out[-1500:])
        return 1
    print("refused: " + out.strip().splitlines()[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
