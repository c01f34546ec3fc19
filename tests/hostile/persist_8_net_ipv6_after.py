# Persistence, part 8 (right after part 7, on the same fork server): the
# network namespace has no IPv6 flow label (none with part 7's marker in
# particular) and no route looked up into a per-CPU copy (rt6_stats' third
# figure, the copies made, is 0 in a namespace as made).
# expect: pass
# stdout: contains NET-PRISTINE
# stdout: not-contains FOUND
# requires: ipv6
# probe: ipv6
# host: warm-intact
import socket

try:
    socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).bind(("::1", 0))
except OSError as e:
    print("PROBE ipv6: absent (%s)" % e)
    raise SystemExit(0)
print("PROBE ipv6: present (bound [::1])")
found = []
rows = open("/proc/net/ip6_flowlabel").read().splitlines()[1:]
if rows:
    found.append("%d flow labels" % len(rows))
mark = b"@MARKER@"[:16].ljust(16, b"\0").hex()
if any(mark in r for r in rows):
    found.append("part 7's marker in a label")
rt_alloc = int(open("/proc/net/rt6_stats").read().split()[2], 16)
if rt_alloc:
    found.append("%d per-CPU route copies" % rt_alloc)
print("FOUND " + ", ".join(found) if found else "NET-PRISTINE")
