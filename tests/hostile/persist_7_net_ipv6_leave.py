# Persistence, part 7 (the warm path): leave IPv6 state in the job's
# network namespace that takes neither a packet nor a socket that outlives
# the job, so none of the counter files parts 5 and 6 look at moves:
# flow labels (IPV6_FLOWLABEL_MGR), which linger past their socket's close
# and carry a label and a destination of the job's choosing (here the run's
# marker), and the per-CPU copy of the ::1 route that a datagram socket's
# connect() makes. A fork server's jobs share a pooled namespace only while
# each leaves it as made (sandboxd/jail/warm_net.c): part 8 runs next on the
# same server and must find neither.
# expect: pass
# stdout: contains LEFT-DIRTY
# requires: ipv6
# probe: ipv6
# host: warm-intact
import socket
import struct

IPV6_FLOWLABEL_MGR = 32
MARK = b"@MARKER@"[:16].ljust(16, b"\0")


def label_req(label):
    # struct in6_flowlabel_req: dst, label (big-endian), action GET, share
    # ANY, flags CREATE, expires and linger in seconds, padding.
    return MARK + struct.pack("!I", label) + struct.pack("=BBHHHI", 0, 255, 1, 60, 60, 0)


try:
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind(("::1", 0))
except OSError as e:
    print("PROBE ipv6: absent (%s)" % e)
    raise SystemExit(0)
print("PROBE ipv6: present (bound [::1])")
made = 0
for label in (0x5bd01, 0x5bd02):
    try:
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_FLOWLABEL_MGR, label_req(label))
        made += 1
    except OSError as e:
        print("flow label %#x: %s" % (label, e))
s.close()
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.connect(("::1", 9))
u.close()
# The control: what part 8 reads, seen dirty from here.
labels = len(open("/proc/net/ip6_flowlabel").readlines()) - 1
rt_alloc = int(open("/proc/net/rt6_stats").read().split()[2], 16)
print("LEFT-DIRTY" if made and labels >= made and rt_alloc else "NOT-DIRTY",
      "labels", labels, "rt_alloc", rt_alloc)
