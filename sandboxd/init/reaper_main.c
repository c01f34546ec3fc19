/* sandboxd-reaper: each warm job's pid 1 (sandboxd/jail/reaper.c) as a
 * program of its own, which a fork server execs once per job before the
 * job comes. It is built against musl, static (Makefile): glibc's static
 * start-up runs dozens of cpuid instructions, each a trap to the
 * hypervisor on a virtual machine. It takes no arguments and reads no
 * environment. */
#include "sandboxd/jail/jail_internal.h"

int main(void)
{
	reaper_main();
}
