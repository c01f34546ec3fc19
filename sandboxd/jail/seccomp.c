/* seccomp layer: OCI/Docker seccomp JSON -> libseccomp -> classic BPF.
 *
 * Compilation happens once, in the daemon, with libseccomp and jansson; the
 * result is a plain sock_filter array so the forked child can load it with a
 * single seccomp(2) call (no allocation, no library state after fork). */
#include "sandboxd/jail/seccomp.h"
#include "common/errfmt.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Profiles are small (Docker's default is ~20 KiB); the bound only stops a
 * mistaken path (a log, a device) from being slurped into memory. */
#define SCMP_MAX_FILE (4u << 20)
/* The kernel clamps bigger errno data, silently changing the profile. */
#define SCMP_MAX_ERRNO 4095
#define SCMP_MAX_TRACE 0xffff
#define SCMP_MAX_ARGS 6
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct seen {
	int nr;
	uint32_t act;
	bool cond; /* has argument comparisons */
	size_t rule;
};

struct build {
	const char *name;
	char *err;
	size_t errlen;
	scmp_filter_ctx f;
	uint32_t def_act;
	bool notify_ok; /* caller asked for notify and the kernel can do it */
	bool used_notify;
	struct seen *seen; /* every (syscall, rule) added so far */
	size_t nseen, capseen;
};

/* "name: base.field: message"; base/field may be empty so one helper names
 * top-level keys, nested fields and array elements alike. */
__attribute__((format(printf, 4, 5))) static int fail(struct build *b, const char *base,
						      const char *field, const char *fmt, ...)
{
	if (!b->err || b->errlen == 0)
		return -1;
	const char *dot = (base[0] && field[0] && field[0] != '[') ? "." : "";
	const char *sep = (base[0] || field[0]) ? ": " : "";
	int n = snprintf(b->err, b->errlen, "%s: %s%s%s%s", b->name, base, dot, field, sep);
	if (n >= 0 && (size_t)n < b->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(b->err + n, b->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* "field[i]" into buf, for naming array elements in messages. */
static const char *elem(char *buf, size_t len, const char *field, size_t i)
{
	snprintf(buf, len, "%s[%zu]", field, i);
	return buf;
}

/* Index of key in a NULL-terminated list, or -1. */
static int find(const char *key, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (strcmp(list[i], key) == 0)
			return i;
	return -1;
}

/* Unknown keys are errors: a misspelt "errnoret" or "arg" would otherwise
 * silently widen or narrow the policy. */
static int check_keys(struct build *b, json_t *obj, const char *base, const char *const *allowed)
{
	for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it))
		if (find(json_object_iter_key(it), allowed) < 0)
			return fail(b, base, json_object_iter_key(it), "unknown key");
	return 0;
}

/* obj[field] as an array, or NULL when absent or null. */
static int get_array(struct build *b, json_t *obj, const char *base, const char *field,
		     json_t **out)
{
	json_t *v = json_object_get(obj, field);
	*out = json_is_array(v) ? v : NULL;
	if (v && !json_is_null(v) && !*out)
		return fail(b, base, field, "not an array");
	return 0;
}

/* v itself as a string (v may be NULL); field names it in messages. */
static int as_string(struct build *b, json_t *v, const char *base, const char *field,
		     const char **out)
{
	*out = json_string_value(v);
	return *out ? 0 : fail(b, base, field, "not a string");
}

static int get_string(struct build *b, json_t *obj, const char *base, const char *field,
		      bool required, const char **out)
{
	json_t *v = json_object_get(obj, field);
	*out = NULL;
	if (!v)
		return required ? fail(b, base, field, "missing") : 0;
	return as_string(b, v, base, field, out);
}

/* An integer field within lo..hi; *out is untouched when an optional field
 * is absent, and *present (if wanted) says whether it was there. */
static int get_int(struct build *b, json_t *obj, const char *base, const char *field, long long lo,
		   long long hi, bool required, long long *out, bool *present)
{
	json_t *v = json_object_get(obj, field);
	if (present)
		*present = v != NULL;
	if (!v)
		return required ? fail(b, base, field, "missing") : 0;
	if (!json_is_integer(v))
		return fail(b, base, field, "not an integer");
	*out = json_integer_value(v);
	if (*out < lo || *out > hi)
		return fail(b, base, field, "%lld out of range %lld..%lld", *out, lo, hi);
	return 0;
}

/* 1 if v names the native arch, 0 another known arch, -1 if invalid.
 * libseccomp knows "x86_64" for SCMP_ARCH_X86_64 and so on; the few names
 * Docker uses that libseccomp 2.5 lacks are known but never native. */
static int arch_is_native(struct build *b, json_t *v, const char *base, const char *field)
{
	static const char *const foreign[] = {"SCMP_ARCH_LOONGARCH64", "SCMP_ARCH_M68K",
					      "SCMP_ARCH_SH", "SCMP_ARCH_SHEB", NULL};
	char lower[24];
	const char *s;
	size_t i;

	if (as_string(b, v, base, field, &s) < 0)
		return -1;
	if (find(s, foreign) >= 0)
		return 0;
	for (i = 0; strncmp(s, "SCMP_ARCH_", 10) == 0 && s[10 + i] && i < sizeof(lower) - 1; i++)
		lower[i] = (char)tolower((unsigned char)s[10 + i]);
	lower[i] = '\0';
	uint32_t token = i > 0 && !s[10 + i] ? seccomp_arch_resolve_name(lower) : 0;
	if (token == 0)
		return fail(b, base, field, "unknown architecture \"%s\"", s);
	return token == seccomp_arch_native();
}

/* Only the native ABI is compiled in; every other listed ABI is validated
 * and then left to SCMP_FLTATR_ACT_BADARCH (see compile). Adding e.g.
 * SCMP_ARCH_X86 would be wrong for a sandbox: libseccomp can only match the
 * i386 socketcall/ipc multiplexers on the call number, so the socket-family
 * argument filter would be bypassable with `int $0x80`; and no CPython built
 * for this machine ever enters the kernel through a compat ABI. */
static int parse_arches(struct build *b, json_t *root)
{
	static const char *const keys[] = {"architecture", "subArchitectures", NULL};
	json_t *list, *map, *subs;
	char base[48], field[48];
	bool listed = false, any = false;
	int rc;

	if (get_array(b, root, "", "architectures", &list) < 0 ||
	    get_array(b, root, "", "archMap", &map) < 0)
		return -1;
	for (size_t i = 0; list && i < json_array_size(list); i++) {
		if ((rc = arch_is_native(b, json_array_get(list, i), "",
					 elem(field, sizeof(field), "architectures", i))) < 0)
			return -1;
		listed |= rc == 1;
		any = true;
	}
	for (size_t i = 0; map && i < json_array_size(map); i++) {
		json_t *e = json_array_get(map, i);
		elem(base, sizeof(base), "archMap", i);
		if (!json_is_object(e))
			return fail(b, base, "", "not an object");
		if (check_keys(b, e, base, keys) < 0)
			return -1;
		if (!json_object_get(e, "architecture"))
			return fail(b, base, "architecture", "missing");
		if ((rc = arch_is_native(b, json_object_get(e, "architecture"), base,
					 "architecture")) < 0 ||
		    get_array(b, e, base, "subArchitectures", &subs) < 0)
			return -1;
		listed |= rc == 1;
		any = true;
		for (size_t j = 0; subs && j < json_array_size(subs); j++)
			if (arch_is_native(b, json_array_get(subs, j), base,
					   elem(field, sizeof(field), "subArchitectures", j)) < 0)
				return -1;
	}
	/* A profile naming architectures but not this one was written for
	 * another machine; guessing would hand out an untested policy. */
	if (any && !listed)
		return fail(b, "", list ? "architectures" : "archMap",
			    "native architecture not listed");
	return 0;
}

/* Every kill flavour compiles to KILL_PROCESS: killing one thread of a
 * CPython process (possibly holding the GIL) leaves a wedged job that only
 * the wall-clock limit would end. ERRNO and TRACE get their data or'd in. */
static const char *const act_names[] = {
    "SCMP_ACT_ALLOW",	     "SCMP_ACT_ERRNO",	     "SCMP_ACT_KILL",
    "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP",
    "SCMP_ACT_LOG",	     "SCMP_ACT_TRACE",	     NULL};
static const uint32_t act_vals[] = {
    SCMP_ACT_ALLOW,	   SCMP_ACT_ERRNO(0), SCMP_ACT_KILL_PROCESS, SCMP_ACT_KILL_PROCESS,
    SCMP_ACT_KILL_PROCESS, SCMP_ACT_TRAP,     SCMP_ACT_LOG,	     SCMP_ACT_TRACE(0)};

/* obj[afield] (+ obj[efield], the errno or trace data) as a libseccomp
 * action. With notify, kills become NOTIFY so the daemon can name the
 * syscall before it kills the job itself. */
static int parse_action(struct build *b, json_t *obj, const char *base, const char *afield,
			const char *efield, uint32_t *out)
{
	long long data = EPERM;
	bool have_data;
	const char *s;

	if (get_string(b, obj, base, afield, true, &s) < 0)
		return -1;
	int i = find(s, act_names);
	if (i < 0 && strcmp(s, "SCMP_ACT_NOTIFY") == 0)
		return fail(b, base, afield,
			    "SCMP_ACT_NOTIFY is not supported (use a kill action: "
			    "the daemon turns those into notifications)");
	if (i < 0)
		return fail(b, base, afield, "unknown action \"%s\"", s);
	uint32_t act = act_vals[i];
	bool takes_data = act == SCMP_ACT_ERRNO(0) || act == SCMP_ACT_TRACE(0);
	long long hi = act == SCMP_ACT_TRACE(0) ? SCMP_MAX_TRACE : SCMP_MAX_ERRNO;
	if (get_int(b, obj, base, efield, 0, hi, false, &data, &have_data) < 0)
		return -1;
	if (have_data && !takes_data)
		return fail(b, base, efield, "only valid with SCMP_ACT_ERRNO or SCMP_ACT_TRACE");
	if (act == SCMP_ACT_KILL_PROCESS && b->notify_ok)
		act = SCMP_ACT_NOTIFY;
	*out = takes_data ? act | (uint32_t)data : act;
	return 0;
}

/* In enum scmp_compare order, from SCMP_CMP_NE (1) to SCMP_CMP_MASKED_EQ. */
static const char *const op_names[] = {"SCMP_CMP_NE",	     "SCMP_CMP_LT", "SCMP_CMP_LE",
				       "SCMP_CMP_EQ",	     "SCMP_CMP_GE", "SCMP_CMP_GT",
				       "SCMP_CMP_MASKED_EQ", NULL};
_Static_assert(SCMP_CMP_MASKED_EQ - SCMP_CMP_NE + 2 == NELEM(op_names), "scmp_compare changed");

static int parse_arg(struct build *b, json_t *arg, const char *base, struct scmp_arg_cmp *cmp)
{
	static const char *const keys[] = {"index", "value", "valueTwo", "op", NULL};
	long long index = 0, value = 0, two = 0;
	const char *op;

	if (!json_is_object(arg))
		return fail(b, base, "", "not an object");
	if (check_keys(b, arg, base, keys) < 0 ||
	    get_int(b, arg, base, "index", 0, SCMP_MAX_ARGS - 1, true, &index, NULL) < 0 ||
	    get_string(b, arg, base, "op", true, &op) < 0)
		return -1;
	int i = find(op, op_names);
	if (i < 0)
		return fail(b, base, "op", "unknown operator \"%s\"", op);
	/* jansson integers are signed 64-bit, so values >= 2^63 cannot be
	 * written; negative ones are taken as two's complement (-1 == ~0). */
	if (get_int(b, arg, base, "value", LLONG_MIN, LLONG_MAX, true, &value, NULL) < 0 ||
	    get_int(b, arg, base, "valueTwo", LLONG_MIN, LLONG_MAX, false, &two, NULL) < 0)
		return -1;
	/* OCI's MASKED_EQ is (arg & value) == valueTwo; libseccomp's datum_a is
	 * the mask and datum_b the expected value, so the order carries over. */
	*cmp = (struct scmp_arg_cmp){.arg = (unsigned int)index,
				     .op = (enum scmp_compare)(SCMP_CMP_NE + i),
				     .datum_a = (uint64_t)value,
				     .datum_b = (uint64_t)two};
	return 0;
}

/* libseccomp settles two rules for one syscall with different actions
 * silently when either is unconditional (the first unconditional one wins;
 * a later one discards earlier argument rules), so an allow-list entry could
 * quietly cancel a kill rule. Such pairs are errors here. */
static int note_rule(struct build *b, int nr, uint32_t act, bool cond, size_t rule,
		     const char *base, const char *field, const char *name)
{
	for (size_t i = 0; i < b->nseen; i++) {
		const struct seen *s = &b->seen[i];
		if (s->nr == nr && s->act != act && (!s->cond || !cond))
			return fail(b, base, field,
				    "\"%s\" conflicts with syscalls[%zu] (different action)", name,
				    s->rule);
	}
	if (b->nseen == b->capseen) {
		size_t cap = b->capseen ? 2 * b->capseen : 256;
		struct seen *n = realloc(b->seen, cap * sizeof(*n));
		if (!n)
			return fail(b, "", "", "out of memory");
		b->seen = n;
		b->capseen = cap;
	}
	b->seen[b->nseen++] = (struct seen){nr, act, cond, rule};
	return 0;
}

/* "includes", "excludes" (Docker's per-kernel/arch/capability selectors) and
 * "comment" are accepted and ignored: every job runs with the same (no)
 * capabilities on the native arch, so each rule applies unconditionally. */
static int parse_rule(struct build *b, json_t *rule, size_t idx)
{
	static const char *const keys[] = {"names",    "action",   "errnoRet", "args",
					   "includes", "excludes", "comment",  NULL};
	struct scmp_arg_cmp cmps[SCMP_MAX_ARGS];
	char base[32], sub[64];
	uint32_t act;
	size_t i, nargs = 0;
	json_t *names, *args;

	elem(base, sizeof(base), "syscalls", idx);
	if (!json_is_object(rule))
		return fail(b, base, "", "not an object");
	if (check_keys(b, rule, base, keys) < 0 || get_array(b, rule, base, "names", &names) < 0)
		return -1;
	if (json_array_size(names) == 0)
		return fail(b, base, "names", names ? "empty" : "missing");
	/* All names are checked before any is added, so errors don't depend on
	 * which names this libseccomp happens to know. */
	for (i = 0; i < json_array_size(names); i++)
		if (!json_is_string(json_array_get(names, i)))
			return fail(b, base, elem(sub, sizeof(sub), "names", i), "not a string");
	if (parse_action(b, rule, base, "action", "errnoRet", &act) < 0 ||
	    get_array(b, rule, base, "args", &args) < 0)
		return -1;
	if (json_array_size(args) > SCMP_MAX_ARGS)
		return fail(b, base, "args", "more than %d comparisons", SCMP_MAX_ARGS);
	for (i = 0; i < json_array_size(args); i++) {
		char abase[64];
		snprintf(abase, sizeof(abase), "%s.args[%zu]", base, i);
		if (parse_arg(b, json_array_get(args, i), abase, &cmps[nargs++]) < 0)
			return -1;
	}
	for (i = 0; i < json_array_size(names); i++) {
		const char *name = json_string_value(json_array_get(names, i));
		int nr = seccomp_syscall_resolve_name(name);
		/* Unknown (__NR_SCMP_ERROR) or pseudo (< 0): not on this arch;
		 * Docker-style multi-arch lists rely on these being skipped. */
		if (nr < 0)
			continue;
		elem(sub, sizeof(sub), "names", i);
		if (note_rule(b, nr, act, nargs > 0, idx, base, sub, name) < 0)
			return -1;
		/* libseccomp refuses rules repeating the default action; once
		 * note_rule has ruled out a conflict they are no-ops anyway. */
		if (act == b->def_act)
			continue;
		int rc = seccomp_rule_add_array(b->f, act, nr, (unsigned int)nargs, cmps);
		if (rc < 0)
			return fail(b, base, sub, "libseccomp rejected \"%s\": %s", name,
				    rc == -EEXIST ? "an identical rule has another action"
						  : errfmt_desc(-rc));
		b->used_notify |= act == SCMP_ACT_NOTIFY;
	}
	return 0;
}

/* Accepted for OCI/Docker compatibility but unused, types still checked:
 * listener* because the daemon itself is the listener; flags because the
 * load flags are fixed (TSYNC is moot in a single-threaded child, LOG and
 * SPEC_ALLOW would only spam the log or weaken a mitigation). */
static int check_ignored(struct build *b, json_t *root)
{
	static const char *const flags[] = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
					    "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
					    "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", NULL};
	json_t *list;
	const char *s;
	char field[32];

	if (get_array(b, root, "", "flags", &list) < 0)
		return -1;
	for (size_t i = 0; list && i < json_array_size(list); i++) {
		elem(field, sizeof(field), "flags", i);
		if (as_string(b, json_array_get(list, i), "", field, &s) < 0)
			return -1;
		if (find(s, flags) < 0)
			return fail(b, "", field, "unknown flag \"%s\"", s);
	}
	if (get_string(b, root, "", "listenerPath", false, &s) < 0)
		return -1;
	return get_string(b, root, "", "listenerMetadata", false, &s);
}

/* Reads up to cap bytes from fd (from its current offset) until EOF. */
static ssize_t read_full(int fd, void *buf, size_t cap)
{
	size_t got = 0;
	for (ssize_t n = 1; got < cap && n != 0; got += n > 0 ? (size_t)n : 0)
		if ((n = read(fd, (char *)buf + got, cap - got)) < 0 && errno != EINTR)
			return -1;
	return (ssize_t)got;
}

/* libseccomp only writes BPF to an fd; an anonymous memfd (or an unnamed
 * tmpfile where memfd is unavailable) keeps it off the filesystem. */
static int export_bpf(struct build *b, struct scmp_prog *out)
{
	struct sock_filter *insns = NULL;
	int rc = -1, fd = memfd_create("sbx-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(b, "", "", "no buffer for the filter: %s", errfmt_desc(errno));
	int e = seccomp_export_bpf(b->f, fd);
	off_t end = e < 0 ? -1 : lseek(fd, 0, SEEK_END);
	if (e < 0 || end < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		fail(b, "", "", "exporting the filter: %s", errfmt_desc(e < 0 ? -e : errno));
		goto out;
	}
	size_t bytes = (size_t)end, len = bytes / sizeof(struct sock_filter);
	/* The kernel refuses programs over BPF_MAXINSNS; saying so here beats
	 * an EINVAL in every job's child. */
	if (bytes == 0 || bytes % sizeof(struct sock_filter) != 0 || len > BPF_MAXINSNS) {
		fail(b, "", "", "compiled filter has %zu bytes (%zu instructions, max %d)", bytes,
		     len, BPF_MAXINSNS);
		goto out;
	}
	ssize_t n = (insns = malloc(bytes)) ? read_full(fd, insns, bytes) : -1;
	if (n != (ssize_t)bytes) {
		fail(b, "", "", "reading back the filter: %s",
		     n < 0 ? errfmt_desc(errno) : "short read");
		goto out;
	}
	*out = (struct scmp_prog){
	    .insns = insns, .len = (unsigned short)len, .notify = b->used_notify};
	insns = NULL;
	rc = 0;
out:
	free(insns);
	close(fd);
	return rc;
}

static int compile(struct build *b, json_t *root, struct scmp_prog *out)
{
	static const char *const keys[] = {
	    "defaultAction", "defaultErrnoRet",	 "architectures", "archMap", "syscalls",
	    "listenerPath",  "listenerMetadata", "flags",	  "comment", NULL};
	json_t *calls;

	if (!json_is_object(root))
		return fail(b, "", "", "top level is not a JSON object");
	if (check_keys(b, root, "", keys) < 0 || check_ignored(b, root) < 0 ||
	    parse_arches(b, root) < 0 || get_array(b, root, "", "syscalls", &calls) < 0)
		return -1;
	/* API level 5: libseccomp and the running kernel both support
	 * SECCOMP_RET_USER_NOTIF and SECCOMP_FILTER_FLAG_NEW_LISTENER. */
	b->notify_ok = b->notify_ok && seccomp_api_get() >= 5;
	if (parse_action(b, root, "", "defaultAction", "defaultErrnoRet", &b->def_act) < 0)
		return -1;
	if (!(b->f = seccomp_init(b->def_act)))
		return fail(b, "", "defaultAction", "libseccomp refused the default action");
	/* NNP: the child sets no_new_privs itself. BADARCH: a foreign ABI is a
	 * kill, notified like the kill list (a bare SIGSYS proves nothing: the
	 * job can send itself one). OPTIMIZE 2: a binary tree keeps a ~300-entry
	 * allow-list at ~9 comparisons per syscall, not ~300. */
	uint32_t badarch = b->notify_ok ? SCMP_ACT_NOTIFY : SCMP_ACT_KILL_PROCESS;
	b->used_notify = b->notify_ok || b->def_act == SCMP_ACT_NOTIFY;
	int rc;
	if ((rc = seccomp_attr_set(b->f, SCMP_FLTATR_CTL_NNP, 0)) < 0 ||
	    (rc = seccomp_attr_set(b->f, SCMP_FLTATR_ACT_BADARCH, badarch)) < 0 ||
	    (rc = seccomp_attr_set(b->f, SCMP_FLTATR_CTL_OPTIMIZE, 2)) < 0)
		return fail(b, "", "", "setting filter attributes: %s", errfmt_desc(-rc));
	for (size_t i = 0; i < json_array_size(calls); i++)
		if (parse_rule(b, json_array_get(calls, i), i) < 0)
			return -1;
	return export_bpf(b, out);
}

int scmp_load_text(const char *name, const char *text, size_t len, bool want_notify,
		   struct scmp_prog *out, char *err, size_t errlen)
{
	struct build b = {.name = name, .err = err, .errlen = errlen, .notify_ok = want_notify};
	json_error_t je;

	*out = (struct scmp_prog){0};
	if (err && errlen)
		err[0] = '\0';
	if (len > SCMP_MAX_FILE)
		return fail(&b, "", "", "profile larger than %u bytes", SCMP_MAX_FILE);
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return fail(&b, "", "", "invalid JSON at line %d: %s", je.line, je.text);
	int rc = compile(&b, root, out);
	if (b.f)
		seccomp_release(b.f);
	free(b.seen);
	json_decref(root);
	return rc;
}

int scmp_load_file(const char *path, bool want_notify, struct scmp_prog *out, char *err,
		   size_t errlen)
{
	struct build b = {.name = path, .err = err, .errlen = errlen};
	struct stat st;
	char *buf = NULL;
	ssize_t got;
	int rc = -1;

	*out = (struct scmp_prog){0};
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return fail(&b, "", "", "%s", errfmt_desc(errno));
	int e = fstat(fd, &st) < 0 ? errno : S_ISREG(st.st_mode) ? 0 : -1;
	if (e) {
		fail(&b, "", "", "%s", e > 0 ? errfmt_desc(e) : "not a regular file");
		goto out;
	}
	/* One byte past the bound, so scmp_load_text rejects a big file rather
	 * than parsing a truncated one. */
	if (!(buf = malloc(SCMP_MAX_FILE + 1)) ||
	    (got = read_full(fd, buf, SCMP_MAX_FILE + 1)) < 0) {
		fail(&b, "", "", "read: %s", errfmt_desc(errno));
		goto out;
	}
	rc = scmp_load_text(path, buf, (size_t)got, want_notify, out, err, errlen);
out:
	free(buf);
	close(fd);
	return rc;
}

void scmp_prog_free(struct scmp_prog *p)
{
	if (!p)
		return;
	free(p->insns);
	*p = (struct scmp_prog){0};
}

void scmp_syscall_name_arch(uint32_t arch, int nr, char *buf, size_t buflen)
{
	/* x32 calls carry the x86_64 audit arch and bit 30 in the number. */
	bool x32 = arch == SCMP_ARCH_X86_64 && (nr & 0x40000000);
	bool native = !x32 && (arch == 0 || arch == seccomp_arch_native());
	const char *abi = x32 ? "x32:" : native ? "" : arch == SCMP_ARCH_X86 ? "i386:" : "foreign:";
	char *name = seccomp_syscall_resolve_num_arch(x32      ? SCMP_ARCH_X32
						      : native ? SCMP_ARCH_NATIVE
							       : arch,
						      nr);
	if (buf && buflen && name)
		snprintf(buf, buflen, "%s%s", abi, name);
	else if (buf && buflen)
		snprintf(buf, buflen, "%s#%d", abi, nr);
	free(name);
}
