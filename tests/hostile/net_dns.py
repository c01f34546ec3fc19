# Resolve names: no resolver is reachable (and /etc/resolv.conf is absent).
# expect: pass
# limits: {"wall_ms": 15000}
# stdout: contains DNS-FAILED
# stdout: not-contains RESOLVED
# host: no-leftover
import socket

failed = 0
for name in ("example.com", "google.com", "metadata.google.internal"):
    try:
        print("RESOLVED", name, socket.getaddrinfo(name, 80))
    except OSError as e:
        failed += 1
        print("failed", name, e)
print("DNS-FAILED" if failed == 3 else "DNS-PARTIAL")
