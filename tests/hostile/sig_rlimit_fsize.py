# Forged evidence: the job lowers its own RLIMIT_FSIZE to 4 KiB, restores
# SIGXFSZ's default action (CPython ignores it) and writes 8 KiB to a file
# in /tmp: the kernel sends a genuine SIGXFSZ, far below tmpfs_mb. Nothing
# tells that from the daemon's own RLIMIT_FSIZE, so a SIGXFSZ death never
# names a limit: runtime_error naming the signal, no limit_hit
# (docs/protocol.md, SECURITY.md "The verdict").
# expect: runtime_error
# limit_hit: none
# violation: none
# stdout: contains LOWERED RLIMIT_FSIZE to 4096
# stdout: not-contains WROTE
# host: no-leftover
import resource
import signal

signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
print("LOWERED RLIMIT_FSIZE to 4096", flush=True)
with open("/tmp/big", "wb") as f:
    f.write(b"x" * 8192)
print("WROTE", flush=True)
