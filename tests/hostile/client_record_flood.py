# A test request whose candidate floods the result channel. The daemon read
# every line (up to REC_TOTAL_MAX, 64 MiB a run) and parsed each whole with
# jansson before it looked at the key: a candidate that finds the runner's
# private pipe among its descriptors (no key needed) wrote 63 lines of 1 MiB
# of tiny JSON objects and cost the daemon's worker thread about 3 s of CPU
# for 30 ms of its own, outside every cgroup. With the key (which an
# in-process candidate can read from the runner's memory), records naming a
# test that is not in a 5,000-test plan each made the daemon scan the plan:
# seconds more. Found by an outside attack (sandboxd/feedback/feedback.c).
# Held when: the daemon's own CPU stays under 0.6 s for the keyless flood
# (a line without the key's text is not parsed) and under 1 s for 16 MiB of
# keyed records (names are found by binary search, and a run's lines get at
# most REC_PARSE_CPU_MS, 500 ms, of parsing: a slower machine reaches it),
# each request still ends `pass` with its flood counted in bad_records, and
# the daemon answers a ping.
# timeout: 180
import client_lib as L

KEYLESS = r'''
import os, stat, fcntl
def w(fd):
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & 3 == 1
    except OSError:
        return False
fd = [f for f in range(3, 1024) if w(f)][-1]
os.set_blocking(fd, True)
line = ("[" + "{}," * 349000 + "{}]\n").encode()
for _ in range(63):
    os.write(fd, line)
def f(x):
    return x
'''
KEYED = r'''
import gc, os, json
ch = next(o for o in gc.get_objects() if type(o).__name__ == "Channel")
line = (json.dumps({"key": ch.key, "type": "start", "name": "\x01"}) + "\n").encode()
blk = line * ((1 << 20) // len(line))
os.set_blocking(ch.fd, True)
for _ in range(16):
    os.write(ch.fd, blk)
def f(x):
    return x
'''


def attack(name, code, tests):
    before = L.cpu_s()
    r = L.call({"id": name, "format": "asserts", "code": code, "tests": tests}, timeout=120)
    used = L.cpu_s() - before
    bad = ((r or {}).get("integrity") or {}).get("bad_records", 0)
    L.log("%s: verdict %s, path %s, bad_records %s, job cpu_ms %s, daemon CPU %.2f s" % (
        name, (r or {}).get("verdict"), (r or {}).get("path"), bad,
        ((r or {}).get("usage") or {}).get("cpu_ms"), used))
    return r or {}, used, bad


chk = L.Checks()
r1, cpu1, bad1 = attack("keyless", KEYLESS, ["assert f(1) == 1"])
r2, cpu2, bad2 = attack("keyed", KEYED, ["assert f(%d) == %d" % (i, i) for i in range(5000)])
chk.bound("daemon CPU s for 63 MiB of keyless lines", cpu1, 0.6)
chk.bound("daemon CPU s for 16 MiB of keyed records naming no test", cpu2, 1.0)
chk.expect(r1.get("verdict") == "pass" and bad1 >= 63 and
           r2.get("verdict") == "pass" and bad2 >= 1000,
           "both requests pass, their floods counted as bad records")
chk.expect(L.ping(), "the daemon answers a ping")
chk.finish()
