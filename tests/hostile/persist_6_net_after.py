# Persistence, part 6 (right after part 5, on the same fork server): the
# network namespace is as new: no socket, no TIME_WAIT, no packet on lo,
# no protocol counter moved.
# expect: pass
# stdout: contains NET-PRISTINE
# stdout: not-contains FOUND
# host: warm-intact
found = []
st = {}
for line in open("/proc/net/sockstat"):
    k, _, rest = line.partition(":")
    f = rest.split()
    st.update({k + "." + f[i]: int(f[i + 1]) for i in range(0, len(f) - 1, 2)})
for key in ("sockets.used", "TCP.inuse", "TCP.tw", "UDP.inuse", "RAW.inuse"):
    if st.get(key):
        found.append("%s=%d" % (key, st[key]))
for line in open("/proc/net/dev"):
    if line.strip().startswith("lo:"):
        v = line.split(":", 1)[1].split()
        if int(v[1]) or int(v[9]):
            found.append("lo packets %s/%s" % (v[1], v[9]))
snmp = open("/proc/net/snmp").read().splitlines()
for i in range(0, len(snmp) - 1, 2):
    names, values = snmp[i].split()[1:], snmp[i + 1].split()[1:]
    row = dict(zip(names, values))
    for key in ("OutNoRoutes", "OutRequests", "InReceives", "OutDatagrams", "ActiveOpens"):
        if row.get(key, "0") != "0":
            found.append("%s %s=%s" % (snmp[i].split(":")[0], key, row[key]))
if len(open("/proc/net/unix").readlines()) > 1:
    found.append("unix sockets")
print("FOUND " + " ".join(found) if found else "NET-PRISTINE")
