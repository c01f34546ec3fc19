# boot_id names the host's boot (a stable host identifier across jobs):
# /proc/sys/kernel/random/boot_id is empty or unreadable in the job.
# expect: pass
# violation: none
# stdout: contains PROC-BOOT-ID-OK
try:
    with open("/proc/sys/kernel/random/boot_id", "rb") as f:
        data = f.read()
except OSError as e:
    data = b""
    print("unreadable:", e.strerror)
print("boot_id:", data)
assert data.strip() == b"", "the host's boot_id is visible"
print("PROC-BOOT-ID-OK")
