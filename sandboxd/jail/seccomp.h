/* seccomp layer: OCI/Docker-format profiles compiled by libseccomp into BPF
 * once at start (prepare), then loaded by the job's process just before
 * execve with nothing but a syscall (apply; no allocation in the child). */
#ifndef SBX_SECCOMP_H
#define SBX_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sock_filter;

struct scmp_prog {
	struct sock_filter *insns;
	unsigned short len;
	/* true: "kill" actions were compiled as SCMP_ACT_NOTIFY so the daemon
	 * learns which syscall was attempted; apply() must ask for a listener. */
	bool notify;
};

/* Parses an OCI seccomp JSON profile (defaultAction, defaultErrnoRet,
 * architectures, syscalls[] {names, action, errnoRet, args[] {index, value,
 * valueTwo, op}}) and compiles it for the native architecture. With
 * want_notify, SCMP_ACT_KILL / KILL_PROCESS / KILL_THREAD become NOTIFY when
 * the kernel supports it. Errors name the file and the offending field, e.g.
 * "python.seccomp.json: syscalls[3].action: unknown action \"SCMP_ACT_FOO\"". */
int scmp_load_file(const char *path, bool want_notify, struct scmp_prog *out, char *err,
		   size_t errlen);
/* Same, from a JSON text; `name` is used in error messages. */
int scmp_load_text(const char *name, const char *text, size_t len, bool want_notify,
		   struct scmp_prog *out, char *err, size_t errlen);
void scmp_prog_free(struct scmp_prog *p);

/* In the child, after PR_SET_NO_NEW_PRIVS: loads the filter. When p->notify,
 * *listener receives the notification fd (else -1). Async-signal-safe. */
int scmp_apply(const struct scmp_prog *p, int *listener);

/* Name of a syscall number into buf ("#nnn" if unknown), for a
 * notification's arch (AUDIT_ARCH_*; 0: native): a foreign ABI's call is
 * prefixed with it, "i386:unshare", "x32:unshare". */
void scmp_syscall_name_arch(uint32_t arch, int nr, char *buf, size_t buflen);
/* The same on the native arch. */
static inline void scmp_syscall_name(int nr, char *buf, size_t buflen)
{
	scmp_syscall_name_arch(0, nr, buf, buflen);
}

#endif
