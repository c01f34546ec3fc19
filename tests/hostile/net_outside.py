# Reach outside addresses over TCP and UDP, IPv4 and IPv6: the job's network
# namespace has only its own loopback, so every attempt fails.
# expect: pass
# limits: {"wall_ms": 10000}
# stdout: contains NET-DONE
# stdout: not-contains CONNECTED
# host: listener-untouched
import socket

targets = [(socket.AF_INET, socket.SOCK_STREAM, ("1.1.1.1", 80)),
           (socket.AF_INET, socket.SOCK_STREAM, ("8.8.8.8", 53)),
           (socket.AF_INET, socket.SOCK_DGRAM, ("8.8.8.8", 53)),
           (socket.AF_INET, socket.SOCK_STREAM, ("10.0.0.1", 80)),
           (socket.AF_INET, socket.SOCK_STREAM, ("169.254.169.254", 80)),
           (socket.AF_INET6, socket.SOCK_STREAM, ("2606:4700:4700::1111", 80, 0, 0))]
for fam, typ, addr in targets:
    s = None
    try:
        # Inside the try: without IPv6 in the kernel the socket itself fails.
        s = socket.socket(fam, typ)
        s.settimeout(2)
        s.connect(addr)
        if typ == socket.SOCK_DGRAM:
            s.send(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01")
            print("CONNECTED udp answer", addr, s.recv(512))
        else:
            print("CONNECTED", addr)
    except OSError as e:
        print("failed", addr, e)
    finally:
        if s:
            s.close()
for name in ("lo", "eth0", "ens3", "enp0s3", "docker0"):
    try:
        print("if", name, socket.if_nametoindex(name))
    except OSError:
        pass
try:
    print("interfaces", socket.if_nameindex())
except OSError as e:
    print("interface list refused:", e)
print("NET-DONE")
