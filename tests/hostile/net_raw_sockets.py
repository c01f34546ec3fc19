# Socket families beyond unix/inet/inet6 (netlink, packet, vsock, alg) and
# raw sockets are refused, by the seccomp profile (EPERM) or by the lack of
# CAP_NET_RAW. The job keeps running.
# expect: pass
# stdout: contains SOCKETS-REFUSED
# stdout: not-contains OPENED
# host: no-leftover
import socket

tries = [(socket.AF_NETLINK, socket.SOCK_RAW, 0), (socket.AF_PACKET, socket.SOCK_RAW, 0),
         (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
         (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW),
         (socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6),
         (40, socket.SOCK_STREAM, 0),  # AF_VSOCK
         (socket.AF_ALG, socket.SOCK_SEQPACKET, 0)]
refused = 0
for fam, typ, proto in tries:
    try:
        s = socket.socket(fam, typ, proto)
        print("OPENED", fam, typ, proto)
        s.close()
    except OSError as e:
        refused += 1
        print("refused", fam, typ, proto, e)
print("SOCKETS-REFUSED" if refused == len(tries) else "SOCKETS-OPEN")
