# Bypass attempt: make the forbidden call through the 32-bit ABI (int 0x80
# with the i386 number of unshare, 310) from machine code in an executable
# mapping. The filter must check the architecture too: the call must not
# run (a user namespace would be created if it did).
#
# This needs the kernel's IA32 emulation (without it int 0x80 faults before
# any syscall and nothing about the filter can be learned): the driver
# probes it on the host with an i386 getpid in an unfiltered child and
# skips the program when it is absent. The program cannot probe it itself
# any more: under the filter, any i386 call is a violation that ends the
# whole job.
#
# The filter's bad-arch action is a notification, like the kill list, so
# the daemon sees the arch and the number before it kills the job: verdict
# violation, named "i386:unshare" (resolved in the i386 table; 310 is
# process_vm_readv in the x86_64 one). A bare SIGSYS would prove nothing
# (sig_self_signal.py), so the name is what makes this a violation.
# requires: ia32-abi
# expect: violation
# violation: i386:unshare
# stdout: contains CALLING unshare through int 0x80
# stdout: not-contains ESCAPED
# host: no-leftover
import ctypes
import mmap


def machine_code(hexcode):
    buf = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    buf.write(bytes.fromhex(hexcode))
    fn = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))
    return buf, fn


# push rbx; mov eax, 310 (unshare); mov ebx, CLONE_NEWUSER; int 0x80; pop rbx; ret
keep, unshare32 = machine_code("53" "b836010000" "bb00000010" "cd80" "5b" "c3")
print("CALLING unshare through int 0x80 (i386 nr 310, CLONE_NEWUSER)", flush=True)
r = unshare32()
print("ESCAPED" if r == 0 else "returned %d" % r, flush=True)
print(open("/proc/self/uid_map").read(), flush=True)
