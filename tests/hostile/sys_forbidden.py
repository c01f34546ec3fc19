# Raw syscalls through ctypes that the seccomp profile forbids, one job per
# row of sys_forbidden.json: the driver runs this program once for each row,
# as sys_forbidden.py[NAME], with the row and its fields substituted ("Tables"
# in tests/integration/test_hostile.c). The program makes the row's syscall
# by its x86_64 number ("nr") with the row's harmless arguments ("args";
# "why" says what the call is for). The profile kills the job before the
# call runs; the response names the syscall, which must be the row's
# "violation" exactly.
#
# An argument is an integer (or a string holding one, such as "0x10000000"),
# null (NULL), {"bytes": S} (S as bytes), {"buffer": N} (N zeroed bytes) or
# {"open": PATH} (a read-only descriptor of PATH).
# table: sys_forbidden.json
# expect: violation
# violation: @ROW.violation@
# stdout: contains CALLING @ROW.name@
# stdout: not-contains RETURNED
# host: no-leftover
import ctypes
import json
import os

ROW = json.loads(r'''@ROW@''')
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def arg(a):
    if a is None:
        return None
    if isinstance(a, int):
        return ctypes.c_long(a)
    if isinstance(a, str):
        return ctypes.c_long(int(a, 0))
    if "bytes" in a:
        return a["bytes"].encode()
    if "buffer" in a:
        return ctypes.create_string_buffer(a["buffer"])
    if "open" in a:
        return ctypes.c_long(os.open(a["open"], os.O_RDONLY))
    raise ValueError("argument %r" % (a,))


args = [arg(a) for a in ROW["args"]]
print("CALLING", ROW["name"], flush=True)
r = libc.syscall(ctypes.c_long(ROW["nr"]), *args)
print("RETURNED", r, os.strerror(ctypes.get_errno()), flush=True)
