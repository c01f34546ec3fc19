# fetch_files through symlinks the job planted in /work: absolute ones to the
# host's secret and /etc/shadow (which the root daemon, resolving in its own
# mount namespace, would read), relative ones climbing out, a symlinked
# directory on the path, and /proc magic links. Each comes back as an error
# naming the symlink; the plain file beside them comes back intact.
# expect: pass
# fetch: ["ok.txt", "abs", "shadow", "rel", "sub/secret", "proc", "cwd/work/ok.txt", "dirlink/x"]
# fetched: ok.txt = fine
# fetched: abs error
# fetched: shadow error
# fetched: rel error
# fetched: sub/secret error
# fetched: proc error
# fetched: cwd/work/ok.txt error
# fetched: dirlink/x error
# host: fetch-clean
# host: daemon-alive
import os

os.chdir("/work")
open("ok.txt", "w").write("fine")
os.symlink("/root/sbx-secret-@MARKER@", "abs")
os.symlink("/etc/shadow", "shadow")
os.symlink("../../../../../../root/sbx-secret-@MARKER@", "rel")
os.symlink("/root", "sub")
os.symlink("/proc/self/root/root/sbx-secret-@MARKER@", "proc")
os.symlink("/proc/1/cwd", "cwd")
os.mkdir("real")
open("real/x", "w").write("x")
os.symlink("real", "dirlink")
