"""The floor under any fork-per-job design, measured beside sandboxd: an
unsandboxed fork server. It starts as bare python3 does (site, no preload),
then for each byte on stdin forks a child that compiles and runs the job's
code as __main__ and exits, waits for it, and answers one byte: 0 when the
child exited 0. No namespace, cgroup, seccomp or reaper: whatever sandboxd
costs above this is the sandbox's; what this costs is the machine's fork,
first touch of each page and exit (section 5 of make bench)."""
import gc
import os
import sys


def main():
    with open(sys.argv[1]) as f:
        src = f.read()
    path = sys.argv[1]
    gc.collect()
    gc.freeze()          # as the fork servers do: no collection walks all pages
    while os.read(0, 1):
        pid = os.fork()
        if pid == 0:
            try:
                exec(compile(src, path, "exec"), {"__name__": "__main__"})
                code = 0
            except BaseException:
                code = 1
            os._exit(code)
        _, st = os.waitpid(pid, 0)
        os.write(1, b"\0" if os.waitstatus_to_exitcode(st) == 0 else b"\1")


if __name__ == "__main__":
    main()
