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
# (a line without the key's text is not parsed), and 16 MiB of keyed
# records add at most 1 s to what the same request costs without them,
# measured in the same run (names are found by binary search, and a run's
# lines get at most REC_PARSE_CPU_MS, 500 ms, of parsing), each flood is
# counted in bad_records, the keyless request still ends `pass`, and the
# daemon answers a ping. The keyed flood may spend the parse budget before the real
# records come (on a machine whose page faults are slow, 16 MiB of records
# take more than 500 ms): the keyed request then ends `pass`, or `fail`
# with every test that has no result saying that the daemon stopped
# reading the run's records, never that the process ended. Either way the
# flood costs only its own run.
# timeout: 180
import client_lib as L

REC_PARSE_CPU_S = 0.5   # REC_PARSE_CPU_MS, common/records.h

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
PLAN = ["assert f(%d) == %d" % (i, i) for i in range(5000)]
r0, cpu0, _ = attack("baseline", "def f(x):\n    return x\n", PLAN)
r1, cpu1, bad1 = attack("keyless", KEYLESS, ["assert f(1) == 1"])
r2, cpu2, bad2 = attack("keyed", KEYED, PLAN)
chk.bound("daemon CPU s for 63 MiB of keyless lines", cpu1, 0.6)
# The same 5,000-test request without the flood, in this run, is the
# baseline: the flood may add the parse budget and as much again for
# reading and draining 16 MiB (before the budget: seconds of plan scans).
chk.expect(r0.get("verdict") == "pass", "the baseline request passes")
chk.bound("daemon CPU s for 16 MiB of keyed records naming no test, over the baseline's %.2f s"
          % cpu0, round(cpu2 - cpu0, 2), 2 * REC_PARSE_CPU_S)
UNREAD = "the daemon stopped reading the run's records"


def keyed_ended_as_told(r):
    """pass, or fail with every test lacking a result told it went unread."""
    if r.get("verdict") == "pass":
        return True
    tests = r.get("tests") or []
    left = [t for t in tests if t.get("outcome") != "passed"]
    L.log("keyed: %d of %d tests without a pass; first: %s" % (
        len(left), len(tests), (left[0].get("message") if left else None)))
    return (r.get("verdict") == "fail" and len(tests) == 5000 and left and
            all(UNREAD in (t.get("message") or "") for t in left))


chk.expect(r1.get("verdict") == "pass" and bad1 >= 63,
           "the keyless request passes, its flood counted as bad records")
chk.expect(bad2 >= 1000 and keyed_ended_as_told(r2),
           "the keyed request's flood is counted as bad records, and it passes or "
           "its tests without a result say their records went unread")
chk.expect(L.ping(), "the daemon answers a ping")
chk.finish()
