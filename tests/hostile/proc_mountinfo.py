# The job's mountinfo (a per-process file: it cannot be masked) names no
# path of the daemon's state dir and no host device file system: the /dev
# nodes are the jail's own, not binds of the host's devtmpfs (whose size=
# option is half the host's memory). The binds of /usr and /etc still show
# the host's root device and its options (SECURITY.md says why).
# expect: pass
# violation: none
# stdout: contains PROC-MOUNTINFO-OK
text = open("/proc/self/mountinfo").read()
print(text)
assert "@STATEDIR@" not in text, "the daemon's state dir shows"
assert " devtmpfs " not in text, "the host's devtmpfs shows"
print("PROC-MOUNTINFO-OK")
