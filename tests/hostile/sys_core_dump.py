# Crash with a core dump after trying to raise RLIMIT_CORE: a core dump
# could be written by the host's core_pattern handler, outside the jail.
# The verdict is runtime_error (killed by SIGABRT).
# expect: runtime_error
# stdout: contains ABORTING
# host: no-leftover
import os
import resource

try:
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    print("core limit raised")
except (ValueError, OSError) as e:
    print("core limit refused:", e)
print("RLIMIT_CORE", resource.getrlimit(resource.RLIMIT_CORE))
os.chdir("/tmp")
print("ABORTING", flush=True)
os.abort()
