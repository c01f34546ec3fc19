# Persistence, part 5 (the warm path): leave the job's network namespace
# in every state a job without capabilities can leave it: a connection's
# end in TIME_WAIT (and lo's packet counters moved), a protocol counter
# moved without a packet (a datagram with no route), and sockets that
# outlive the process in flight. A fork server's jobs share a pooled
# namespace only while each leaves it as new (sandboxd/jail/warm_net.h):
# part 6 runs next on the same server and must find it as new.
# expect: pass
# stdout: contains LEFT-DIRTY
# host: warm-intact
import array
import socket

s = socket.create_server(("127.0.0.1", 0))
c = socket.create_connection(s.getsockname())
a, _ = s.accept()
c.close()
a.close()
s.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.sendto(b"x", ("10.255.255.1", 9))
except OSError:
    pass
u.close()
p, q = socket.socketpair()
p.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                    array.array("i", [p.fileno(), q.fileno()]))])
p.close()
q.close()
# The control: what part 6 reads, seen dirty from here.
stat = open("/proc/net/sockstat").read()
tw = int(stat.split(" tw ")[1].split()[0])
snmp = open("/proc/net/snmp").read().splitlines()
noroute = dict(zip(snmp[0].split()[1:], snmp[1].split()[1:]))["OutNoRoutes"]
print("LEFT-DIRTY" if tw and noroute != "0" else "NOT-DIRTY", "tw", tw, "noroute", noroute)
