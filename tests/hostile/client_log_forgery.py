# Forge a record in the daemon's log: a request id with a newline, and a
# job whose exception message holds one, each followed by text shaped like
# the daemon's own log line. Before the daemon escaped control characters,
# each became a separate, fake record ("sandboxd: job admin: pass").
# Held when: both texts reached the log, and no line of the log starts with
# the forged text (it stays inside the record that carried it, escaped).
import os
import time

import client_lib as L

LOG = os.environ.get("SBX_DAEMON_LOG", "")
if not LOG or not os.path.exists(LOG):
    L.skip("the driver gave no daemon log (SBX_DAEMON_LOG)")
chk = L.Checks()
forged_id = L.call({"id": "x\nFORGED-ID sandboxd: job admin: pass", "code": "print(1)\n"})
forged_msg = L.call({
    "id": "forge-msg",
    "code": "raise Exception('\\nFORGED-MSG sandboxd: job admin: pass')\n",
    "format": "unittest",
    "tests": "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n",
})
time.sleep(0.3)  # the log line of the last job is written after its answer
with open(LOG, errors="replace") as f:
    log = f.read()
lines = log.splitlines()
forged = [ln for ln in lines if ln.startswith("FORGED") or ln.lstrip().startswith("FORGED")]
L.log("id job: %s; message job: %s" % ((forged_id or {}).get("verdict"),
                                       (forged_msg or {}).get("verdict")))
chk.expect("FORGED-ID" in log and "FORGED-MSG" in log, "both forged texts reached the log")
chk.expect(not forged, "no log line starts with forged text (found %d)" % len(forged))
chk.expect(L.ping(), "the daemon answers a ping afterwards")
chk.finish()
