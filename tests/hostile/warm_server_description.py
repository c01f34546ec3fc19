# A warm job looks in its own memory for its fork server's description:
# the sealed memfd the daemon wrote for the server ("sandboxd-job" in
# /proc/self/maps), which names the daemon's state directory on the host
# (the server's root) and holds the passwd and group the daemon made and
# the runner's bytes. A cold job's description is gone before its code
# runs (its init's exec), and a warm job unmaps its own; the server's,
# mapped in the server before the fork, must be gone as well. Found by an
# outside attack: it was mapped, readable, in every warm job.
# expect: pass
# stdout: contains NO-DESCRIPTION
# stdout: not-contains STATEDIR-READ
# host: warm-intact
import ctypes

found = []
for line in open("/proc/self/maps"):
    if "sandboxd-job" not in line:
        continue
    lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
    data = ctypes.string_at(lo, hi - lo) if "r" in line.split()[1] else b""
    found.append("%s (%d bytes%s)" % (line.split()[-2], hi - lo,
                                      "; STATEDIR-READ" if b"@STATEDIR@" in data else ""))
print("FOUND-DESCRIPTION " + "; ".join(found) if found else "NO-DESCRIPTION")
