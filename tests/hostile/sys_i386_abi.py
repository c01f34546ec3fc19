# Bypass attempt: make the forbidden call through the 32-bit ABI (int 0x80
# with the i386 number of unshare, 310) from machine code in an executable
# mapping. The filter must check the architecture too: the call must not
# run (a user namespace would be created if it did).
#
# This needs the kernel's IA32 emulation. Without it (CONFIG_IA32_EMULATION
# off, or ia32_emulation=0) int 0x80 faults before any syscall, the process
# dies of SIGSEGV with or without a filter, and nothing about the filter can
# be learned. So the program first probes, harmlessly, with an i386 getpid
# (20) in a forked child, and prints what it found on a "PROBE ia32-abi:"
# line (the driver checks it agrees with its own unfiltered probe on the
# host):
#   child killed by SIGSYS       present: the filter refuses the i386 ABI
#   child got its own pid        present, and NOT refused: the unshare
#                                attempt below then shows the damage
#   child killed by SIGSEGV, or  absent: the program stops there (exit 0) and
#   -ENOSYS                      the driver reports a skip with the reason
#
# With the ABI, the call must be killed by the filter's bad-arch action
# (SIGSYS): verdict violation. The kernel kills before anyone is notified,
# so the response's violation object is null (docs/protocol.md); the
# syscall is named in the output instead ("CALLING unshare ..."). "unshare"
# is accepted too, should the daemon learn to name i386 calls; any other
# name is wrong (310 is process_vm_readv in the x86_64 table).
# requires: ia32-abi
# probe: ia32-abi
# expect: violation
# violation: unshare|none
# stdout: contains PROBE ia32-abi: present
# stdout: contains CALLING unshare through int 0x80
# stdout: not-contains ESCAPED
# host: no-leftover
import ctypes
import mmap
import os
import signal
import sys


def machine_code(hexcode):
    buf = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    buf.write(bytes.fromhex(hexcode))
    fn = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))
    return buf, fn


def probe():
    """'present (...)' or 'absent (...)': an i386 getpid in a forked child."""
    if "@ASSUME_NO_IA32@" == "1":
        return "absent (SBX_TEST_ASSUME_NO_IA32 is set by the test driver: not probed)"
    # push rbx; mov eax, 20 (getpid); int 0x80; pop rbx; ret
    keep, getpid32 = machine_code("53" "b814000000" "cd80" "5b" "c3")
    pid = os.fork()
    if pid == 0:
        r = getpid32()
        os._exit(0 if r == os.getpid() else 2 if r == -38 else 3)
    _, st = os.waitpid(pid, 0)
    if os.WIFSIGNALED(st):
        sig = signal.Signals(os.WTERMSIG(st)).name
        if sig == "SIGSYS":
            return "present (an i386 getpid in a forked child was killed by SIGSYS)"
        return "absent (an i386 getpid in a forked child died of %s: no IA32 emulation)" % sig
    code = os.WEXITSTATUS(st)
    if code == 0:
        return "present (an i386 getpid in a forked child returned its pid: NOT refused)"
    if code == 2:
        return "absent (an i386 getpid in a forked child returned -ENOSYS)"
    return "unknown (an i386 getpid in a forked child returned something else)"


found = probe()
print("PROBE ia32-abi:", found, flush=True)
if not found.startswith("present"):
    sys.exit(0)

# push rbx; mov eax, 310 (unshare); mov ebx, CLONE_NEWUSER; int 0x80; pop rbx; ret
keep, unshare32 = machine_code("53" "b836010000" "bb00000010" "cd80" "5b" "c3")
print("CALLING unshare through int 0x80 (i386 nr 310, CLONE_NEWUSER)", flush=True)
r = unshare32()
print("ESCAPED" if r == 0 else "returned %d" % r, flush=True)
print(open("/proc/self/uid_map").read(), flush=True)
