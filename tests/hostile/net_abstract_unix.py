# Connect to an abstract Unix socket the driver bound on the host, and to the
# daemon's own socket path: the job's network namespace has its own abstract
# namespace and its mount namespace has no host paths, so both fail.
# expect: pass
# stdout: contains UNIX-REFUSED
# stdout: not-contains CONNECTED
# host: abstract-untouched
# host: daemon-alive
import socket

refused = 0
for typ in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET):
    s = socket.socket(socket.AF_UNIX, typ)
    try:
        s.connect("\0sbx-@MARKER@")
        print("CONNECTED abstract", typ)
    except OSError as e:
        refused += 1
        print("refused abstract", typ, e)
    s.close()
for path in ("@SOCK@", "/run/sandboxd.sock", "/var/run/dbus/system_bus_socket",
             "/run/systemd/private", "/run/docker.sock"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        s.sendall(b'{"id":"x","op":"ping"}\n')
        print("CONNECTED", path, s.recv(200))
    except OSError as e:
        refused += 1
        print("refused", path, e)
    s.close()
print("UNIX-REFUSED" if refused == 7 else "UNIX-OPEN")
