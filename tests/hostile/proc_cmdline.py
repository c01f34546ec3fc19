# The host's kernel command line (hypervisor and orchestration arguments)
# must not reach the job: /proc/cmdline is empty or unreadable.
# expect: pass
# violation: none
# stdout: contains PROC-CMDLINE-OK
try:
    with open("/proc/cmdline", "rb") as f:
        data = f.read()
except OSError as e:
    data = b""
    print("unreadable:", e.strerror)
print("cmdline:", data[:300])
assert data == b"", "the host's kernel command line is visible"
print("PROC-CMDLINE-OK")
