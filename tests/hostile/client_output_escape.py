# A job writes 64 MiB of \x01 to stdout and to stderr with output_kb 65536:
# each control byte escapes to 6 bytes of JSON, so the response would be a
# ~768 MiB line. Three small jobs are in flight on the same connection.
# Held when: every small job's response arrives intact, the big job gets
# its answer on the same connection (output_limit: output_kb counts encoded
# bytes, and the response is cut to --max-response-mb, default 64), and the
# daemon's own CPU and peak RSS stay bounded (the job pays for its output).
# Before the fix: no answer for the big job (its connection was dropped),
# ~12 s of daemon CPU, VmHWM 1.7 GB.
# timeout: 240
import json
import time

import client_lib as L

BIG = (
    "import os\n"
    "b = b'\\x01' * (1 << 20)\n"
    "for _ in range(64):\n"
    "    os.write(1, b)\n"
    "    os.write(2, b)\n"
    "print('done')\n"
)
SMALL = "import time\ntime.sleep(3)\nprint('small %d')\n"

chk = L.Checks()
cpu0, hwm0 = L.cpu_s(), L.hwm_kb()
s = L.connect(timeout=200)
rd = L.Reader(s)
L.send(s, {"id": "small-0", "code": SMALL % 0})
L.send(s, {"id": "big", "code": BIG, "limits": {"output_kb": 65536, "wall_ms": 60000}})
for i in (1, 2):
    L.send(s, {"id": "small-%d" % i, "code": SMALL % i, "limits": {"wall_ms": 60000}})
got, sizes = {}, {}
t0 = time.monotonic()
while len(got) < 4 and time.monotonic() - t0 < 200:
    ln = rd.line(timeout=200 - (time.monotonic() - t0))
    if ln is None:
        break
    try:
        r = json.loads(ln)
    except ValueError:
        continue
    got[r.get("id")] = r
    sizes[r.get("id")] = len(ln)
s.close()
cpu = L.cpu_s() - cpu0
hwm = L.hwm_kb()
L.log("responses: %s" % {k: (v.get("verdict") or v.get("error"), sizes[k]) for k, v in got.items()})
L.log("daemon CPU %.2f s, VmHWM %d -> %d KiB" % (cpu, hwm0, hwm))
for i in range(3):
    r = got.get("small-%d" % i)
    chk.expect(
        r is not None and r.get("verdict") == "pass" and r.get("stdout") == "small %d\n" % i,
        "small-%d answered intact on the big job's connection" % i,
    )
big = got.get("big")
chk.expect(
    big is not None
    and big.get("verdict") == "output_limit"
    and big.get("limit_hit") == "output"
    and (big.get("stdout_truncated") or big.get("stderr_truncated")),
    "the big job got an answer: output_limit, truncated",
)
chk.bound("big response bytes", sizes.get("big", 1 << 40), 80 << 20)
chk.bound("daemon CPU seconds", round(cpu, 2), 6.0)
chk.bound("daemon VmHWM growth MiB", (hwm - hwm0) // 1024, 256, memory=True)
chk.expect(L.ping(), "the daemon answers a ping")
chk.finish()
