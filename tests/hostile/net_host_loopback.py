# Connect to a TCP listener the driver opened on the host's 127.0.0.1: the
# job's loopback is its own, so it must be refused and the host listener
# must see no connection.
# expect: pass
# stdout: contains LOOPBACK-REFUSED
# stdout: not-contains CONNECTED
# host: listener-untouched
import socket

refused = 0
for fam, addr in ((socket.AF_INET, ("127.0.0.1", @PORT@)), (socket.AF_INET, ("127.0.0.2", @PORT@)),
                  (socket.AF_INET6, ("::1", @PORT@)), (socket.AF_INET6, ("::ffff:127.0.0.1", @PORT@))):
    s = None
    try:
        # Inside the try: without IPv6 in the kernel the socket itself fails
        # (EAFNOSUPPORT), which is a refusal too.
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect(addr)
        print("CONNECTED", addr)
    except OSError as e:
        refused += 1
        print("refused", addr, e)
    if s:
        s.close()
# The job's own loopback works (it is there, just not the host's).
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
c = socket.create_connection(srv.getsockname(), timeout=2)
print("own loopback ok")
print("LOOPBACK-REFUSED" if refused == 4 else "LOOPBACK-OPEN")
