/* Unit tests for profiles: the shipped python profile, every kind of broken
 * profile with a message naming the file and the field, directory loading,
 * and limits_resolve (defaults, clamping, refusals). Run from the repository
 * root: the shipped profile is read from policies/. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandboxd/policy/profile.h"
#include "tests/helpers/tmain.h"

#define SECCOMP_SRC "policies/python.seccomp.json"

/* A temp dir with a copy of the shipped seccomp profile as s.seccomp.json,
 * an executable at bin/interp and an empty dir bin2/; made once (unchecked
 * fixture) and inherited by every forked test. */
static char g_dir[64];

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb");
	ck_assert_msg(in != NULL, "%s: %s (run from the repository root)", from, strerror(errno));
	FILE *out = fopen(to, "wb");
	ck_assert_msg(out != NULL, "%s: %s", to, strerror(errno));
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	ck_assert_int_eq(fclose(out), 0);
}

static void write_text(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	size_t n = strlen(text);
	ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
	ck_assert_int_eq(chmod(path, mode), 0);
}

static char *dpath(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;
	char *b = buf[k++ % 4];
	snprintf(b, PATH_MAX, "%s/%s", g_dir, rel);
	return b;
}

static void setup_dir(void)
{
	snprintf(g_dir, sizeof g_dir, "/tmp/sbx-profile-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(g_dir));
	copy_file(SECCOMP_SRC, dpath("s.seccomp.json"));
	ck_assert_int_eq(mkdir(dpath("bin"), 0755), 0);
	ck_assert_int_eq(mkdir(dpath("bin2"), 0755), 0);
	write_text(dpath("bin/interp"), "#!/bin/sh\nexit 0\n", 0755);
	write_text(dpath("bin2/interp"), "#!/bin/sh\nexit 0\n", 0755);
}

static void teardown_dir(void)
{
	if (!g_dir[0])
		return;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", g_dir);
}

/* Building blocks of a valid profile text. */
#define INTERP "\"interpreter\":\"/usr/bin/python3\""
#define SECCOMP "\"seccomp\":\"s.seccomp.json\""
#define DEF_OK                                                                                     \
	"{\"cpu_ms\":1000,\"wall_ms\":2000,\"memory_mb\":64,\"pids\":8,\"output_kb\":64,\"tmpfs_"  \
	"mb\":8}"
#define MAX_OK                                                                                     \
	"{\"cpu_ms\":2000,\"wall_ms\":4000,\"memory_mb\":128,\"pids\":16,\"output_kb\":128,"       \
	"\"tmpfs_mb\":16}"
#define LIMITS "\"limits\":{\"default\":" DEF_OK ",\"max\":" MAX_OK "}"
#define VALID "{" INTERP "," SECCOMP "," LIMITS "}"

static int load(const char *text, struct profile *p, char *err, size_t errlen)
{
	err[0] = '\0';
	return profile_load_text(g_dir, "prof.json", text, false, p, err, errlen);
}

/* ---- the shipped profile ------------------------------------------------- */

START_TEST(test_shipped_python)
{
	struct profile_set set;
	char err[512] = "";
	int rc = profile_load_dir("policies", false, &set, err, sizeof err);
	ck_assert_msg(rc == 0, "loading policies/: %s", err);
	ck_assert_uint_ge(set.n, 1);
	const struct profile *p = profile_find(&set, NULL);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_eq(profile_find(&set, "python"), p);
	ck_assert_ptr_null(profile_find(&set, "no-such-profile"));
	ck_assert_ptr_null(profile_find(&set, "python.seccomp"));
	ck_assert_str_eq(p->name, "python");
	ck_assert_str_eq(p->interpreter, "/usr/bin/python3");
	ck_assert_uint_eq(p->nargs, 1);
	ck_assert_str_eq(p->args[0], "-B");
	ck_assert_ptr_null(p->args[1]);
	ck_assert_uint_eq(p->n_ro, 0);
	for (int i = 0; i < PROTO_NLIMITS; i++) {
		long d = proto_limit_get(&p->defaults, i), m = proto_limit_get(&p->maxima, i);
		ck_assert_msg(d > 0 && d <= m, "%s: default %ld, max %ld", proto_limit_names[i], d,
			      m);
		ck_assert_msg(m <= (1L << 40), "%s: max %ld", proto_limit_names[i], m);
	}
	/* Sane: the shipped values, so a silent change is noticed. */
	ck_assert_int_eq(p->defaults.cpu_ms, 10000);
	ck_assert_int_eq(p->defaults.wall_ms, 20000);
	ck_assert_int_eq(p->defaults.memory_mb, 512);
	ck_assert_int_eq(p->maxima.cpu_ms, 600000);
	ck_assert_int_eq(p->maxima.pids, 1024);
	ck_assert_ptr_nonnull(p->seccomp.insns);
	ck_assert_uint_gt(p->seccomp.len, 0);
	ck_assert(!p->seccomp.notify);
	profile_set_free(&set);
	ck_assert_ptr_null(set.v);
	ck_assert_uint_eq(set.n, 0);
}
END_TEST

/* ---- valid texts ---------------------------------------------------------- */

START_TEST(test_valid_text)
{
	struct profile p;
	char err[512];
	const char *text = "{\"description\":\"test\"," INTERP ",\"args\":[\"-B\",\"-I\"],"
			   "\"readonly_paths\":[\"/usr/lib\",\"/etc/ssl\"]," SECCOMP "," LIMITS "}";
	ck_assert_msg(load(text, &p, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(p.name, "prof");
	ck_assert_str_eq(p.interpreter, "/usr/bin/python3");
	ck_assert_uint_eq(p.nargs, 2);
	ck_assert_str_eq(p.args[0], "-B");
	ck_assert_str_eq(p.args[1], "-I");
	ck_assert_ptr_null(p.args[2]);
	ck_assert_uint_eq(p.n_ro, 2);
	ck_assert_str_eq(p.ro_paths[0], "/usr/lib");
	ck_assert_str_eq(p.ro_paths[1], "/etc/ssl");
	/* The stdio case limits, left out: their maximum is the whole limit's,
	 * their default that maximum (a case may use the whole request). No
	 * cpus in the profile: one by default, at most the host's CPUs. */
	struct proto_limits d = {1000, 2000, 64, 8, 64, 8, 2000, 4000, 1},
			    m = {2000, 4000, 128, 16, 128, 16, 2000, 4000, profile_host_cpus()};
	for (int i = 0; i < PROTO_NLIMITS; i++) {
		ck_assert_int_eq(proto_limit_get(&p.defaults, i), proto_limit_get(&d, i));
		ck_assert_int_eq(proto_limit_get(&p.maxima, i), proto_limit_get(&m, i));
	}
	ck_assert_ptr_nonnull(p.seccomp.insns);
	profile_free(&p);
	ck_assert_uint_eq(p.nargs, 0);
	ck_assert_ptr_null(p.seccomp.insns);
}
END_TEST

START_TEST(test_defaults_equal_max_and_bound)
{
	struct profile p;
	char err[512];
	/* default == max is fine, and 2^40 is the largest accepted value. */
	const char *text = "{" INTERP "," SECCOMP ",\"limits\":{\"default\":" MAX_OK
			   ",\"max\":{\"cpu_ms\":1099511627776,\"wall_ms\":4000,\"memory_mb\":128,"
			   "\"pids\":16,\"output_kb\":128,\"tmpfs_mb\":16}}}";
	ck_assert_msg(load(text, &p, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(p.maxima.cpu_ms, 1L << 40);
	ck_assert_int_eq(p.defaults.cpu_ms, 2000);
	profile_free(&p);
}
END_TEST

/* cpus: a profile may name it; a request is clamped to the maximum. */
START_TEST(test_cpus_limit)
{
	struct profile p;
	char err[512];
	const char *text =
	    "{" INTERP "," SECCOMP ",\"limits\":{\"default\":{\"cpu_ms\":1000,\"wall_ms\":2000,"
	    "\"memory_mb\":64,\"pids\":8,\"output_kb\":64,\"tmpfs_mb\":8,\"cpus\":2},\"max\":{"
	    "\"cpu_ms\":2000,\"wall_ms\":4000,\"memory_mb\":128,\"pids\":16,\"output_kb\":128,"
	    "\"tmpfs_mb\":16,\"cpus\":3}}}";
	ck_assert_msg(load(text, &p, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(p.defaults.cpus, 2);
	ck_assert_int_eq(p.maxima.cpus, 3);
	struct proto_limits req = PROTO_LIMITS_UNSET, out;
	ck_assert_int_eq(limits_resolve(&req, &p, &out, err, sizeof err), 0);
	ck_assert_int_eq(out.cpus, 2);
	req.cpus = 64;
	ck_assert_int_eq(limits_resolve(&req, &p, &out, err, sizeof err), 0);
	ck_assert_int_eq(out.cpus, 3);
	req.cpus = 0;
	ck_assert_int_eq(limits_resolve(&req, &p, &out, err, sizeof err), -1);
	profile_free(&p);
	ck_assert_int_ge(profile_host_cpus(), 1);
}
END_TEST

START_TEST(test_interpreter_under_readonly_path)
{
	struct profile p;
	char err[1024], text[2048];
	snprintf(text, sizeof text,
		 "{\"interpreter\":\"%s\",\"readonly_paths\":[\"%s\"]," SECCOMP "," LIMITS "}",
		 dpath("bin/interp"), dpath("bin"));
	ck_assert_msg(load(text, &p, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(p.interpreter, dpath("bin/interp"));
	profile_free(&p);
	/* The readonly path must be a directory prefix, not a string prefix. */
	snprintf(text, sizeof text,
		 "{\"interpreter\":\"%s\",\"readonly_paths\":[\"%s\"]," SECCOMP "," LIMITS "}",
		 dpath("bin2/interp"), dpath("bin"));
	ck_assert_int_eq(load(text, &p, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "prof.json") && strstr(err, "interpreter"), "%s", err);
	/* The order of the fields does not matter. */
	snprintf(text, sizeof text,
		 "{\"readonly_paths\":[\"%s\"]," SECCOMP "," LIMITS ",\"interpreter\":\"%s\"}",
		 dpath("bin2"), dpath("bin2/interp"));
	ck_assert_msg(load(text, &p, err, sizeof err) == 0, "%s", err);
	profile_free(&p);
}
END_TEST

START_TEST(test_bin_sh_covered_by_readonly_bin)
{
	struct profile p;
	char err[512];
	const char *text =
	    "{\"interpreter\":\"/bin/sh\",\"readonly_paths\":[\"/bin\"]," SECCOMP "," LIMITS "}";
	ck_assert_msg(load(text, &p, err, sizeof err) == 0, "%s", err);
	profile_free(&p);
}
END_TEST

START_TEST(test_file_name_rules)
{
	struct profile p;
	char err[512] = "";
	ck_assert_int_eq(profile_load_text(g_dir, "a.json", VALID, false, &p, err, sizeof err), 0);
	ck_assert_str_eq(p.name, "a");
	profile_free(&p);
	ck_assert_int_eq(profile_load_text(g_dir, "json", VALID, false, &p, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "json"));
	char longname[128];
	memset(longname, 'n', 64);
	strcpy(longname + 64, ".json");
	ck_assert_int_eq(profile_load_text(g_dir, longname, VALID, false, &p, err, sizeof err), -1);
	memset(longname, 'n', 63);
	strcpy(longname + 63, ".json");
	ck_assert_msg(profile_load_text(g_dir, longname, VALID, false, &p, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_uint_eq(strlen(p.name), 63);
	profile_free(&p);
}
END_TEST

/* ---- broken texts ------------------------------------------------------- */

struct bad_profile {
	const char *what;
	const char *text;
	const char *field;  /* must appear in the message, besides "prof.json" */
	const char *field2; /* a second substring, or NULL */
};

static const struct bad_profile bad[] = {
    {"invalid JSON", "{\"interpreter\":", "invalid JSON", NULL},
    {"empty text", "", "invalid JSON", NULL},
    {"duplicate key", "{" INTERP "," INTERP "," SECCOMP "," LIMITS "}", "invalid JSON",
     "duplicate"},
    {"not an object", "[\"/usr/bin/python3\"]", "object", NULL},
    {"a string (not a container)", "\"python\"", "invalid JSON", NULL},
    {"unknown top-level field", "{" INTERP "," SECCOMP "," LIMITS ",\"networking\":true}",
     "networking", "unknown"},
    {"missing interpreter", "{" SECCOMP "," LIMITS "}", "interpreter", "missing"},
    {"interpreter not a string", "{\"interpreter\":5," SECCOMP "," LIMITS "}", "interpreter", NULL},
    {"relative interpreter", "{\"interpreter\":\"usr/bin/python3\"," SECCOMP "," LIMITS "}",
     "interpreter", NULL},
    {"interpreter with ..", "{\"interpreter\":\"/usr/lib/../bin/python3\"," SECCOMP "," LIMITS "}",
     "interpreter", NULL},
    {"interpreter with //", "{\"interpreter\":\"/usr//bin/python3\"," SECCOMP "," LIMITS "}",
     "interpreter", NULL},
    {"interpreter missing file",
     "{\"interpreter\":\"/usr/bin/sbx-no-such-interpreter\"," SECCOMP "," LIMITS "}", "interpreter",
     "sbx-no-such-interpreter"},
    {"interpreter not executable", "{\"interpreter\":\"/etc/passwd\"," SECCOMP "," LIMITS "}",
     "interpreter", "/etc/passwd"},
    {"interpreter outside /usr", "{\"interpreter\":\"/bin/sh\"," SECCOMP "," LIMITS "}",
     "interpreter", "/bin/sh"},
    {"interpreter outside /usr, other ro path",
     "{\"interpreter\":\"/bin/sh\",\"readonly_paths\":[\"/etc\"]," SECCOMP "," LIMITS "}",
     "interpreter", "/bin/sh"},
    {"readonly_paths not an array",
     "{" INTERP ",\"readonly_paths\":\"/usr\"," SECCOMP "," LIMITS "}", "readonly_paths", NULL},
    {"readonly_paths relative",
     "{" INTERP ",\"readonly_paths\":[\"usr/lib\"]," SECCOMP "," LIMITS "}", "readonly_paths[0]",
     "usr/lib"},
    {"readonly_paths with ..",
     "{" INTERP ",\"readonly_paths\":[\"/usr\",\"/usr/../etc\"]," SECCOMP "," LIMITS "}",
     "readonly_paths[1]", NULL},
    {"readonly_paths ending in ..",
     "{" INTERP ",\"readonly_paths\":[\"/usr/..\"]," SECCOMP "," LIMITS "}", "readonly_paths[0]",
     NULL},
    {"readonly_paths root", "{" INTERP ",\"readonly_paths\":[\"/\"]," SECCOMP "," LIMITS "}",
     "readonly_paths[0]", NULL},
    {"readonly_paths trailing slash",
     "{" INTERP ",\"readonly_paths\":[\"/usr/\"]," SECCOMP "," LIMITS "}", "readonly_paths[0]",
     NULL},
    {"readonly_paths nonexistent",
     "{" INTERP ",\"readonly_paths\":[\"/sbx-no-such-dir\"]," SECCOMP "," LIMITS "}",
     "readonly_paths[0]", "sbx-no-such-dir"},
    {"readonly_paths not strings", "{" INTERP ",\"readonly_paths\":[1]," SECCOMP "," LIMITS "}",
     "readonly_paths[0]", NULL},
    {"readonly_paths empty string", "{" INTERP ",\"readonly_paths\":[\"\"]," SECCOMP "," LIMITS "}",
     "readonly_paths[0]", NULL},
    {"args not strings", "{" INTERP ",\"args\":[\"-B\",2]," SECCOMP "," LIMITS "}", "args[1]",
     NULL},
    {"args not an array", "{" INTERP ",\"args\":\"-B\"," SECCOMP "," LIMITS "}", "args", NULL},
    {"args empty string", "{" INTERP ",\"args\":[\"\"]," SECCOMP "," LIMITS "}", "args[0]", NULL},
    {"too many args",
     "{" INTERP ",\"args\":[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\"]," SECCOMP
     "," LIMITS "}",
     "args", NULL},
    {"limits missing", "{" INTERP "," SECCOMP "}", "limits", NULL},
    {"limits not an object", "{" INTERP "," SECCOMP ",\"limits\":[1]}", "limits", NULL},
    {"limits unknown field",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":" DEF_OK ",\"max\":" MAX_OK ",\"hard\":{}}}",
     "limits.hard", NULL},
    {"limits.default missing", "{" INTERP "," SECCOMP ",\"limits\":{\"max\":" MAX_OK "}}",
     "limits.default", NULL},
    {"limits.max missing", "{" INTERP "," SECCOMP ",\"limits\":{\"default\":" DEF_OK "}}",
     "limits.max", NULL},
    {"limits.default not an object",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":5,\"max\":" MAX_OK "}}", "limits.default",
     NULL},
    {"limits.default missing a key",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":{\"cpu_ms\":1000,\"wall_ms\":2000,"
     "\"memory_mb\":64,\"pids\":8,\"output_kb\":64},\"max\":" MAX_OK "}}",
     "limits.default.tmpfs_mb", "missing"},
    {"limits.max missing a key",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":" DEF_OK ",\"max\":{\"wall_ms\":4000,"
     "\"memory_mb\":128,\"pids\":16,\"output_kb\":128,\"tmpfs_mb\":16}}}",
     "limits.max.cpu_ms", "missing"},
    {"unknown limit key",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":{\"cpu_ms\":1000,\"wall_ms\":2000,"
     "\"memory_mb\":64,\"pids\":8,\"output_kb\":64,\"tmpfs_mb\":8,\"disk_mb\":1},\"max\":" MAX_OK
     "}}",
     "limits.default.disk_mb", "unknown"},
    {"zero limit",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":{\"cpu_ms\":0,\"wall_ms\":2000,"
     "\"memory_mb\":64,\"pids\":8,\"output_kb\":64,\"tmpfs_mb\":8},\"max\":" MAX_OK "}}",
     "limits.default.cpu_ms", NULL},
    {"negative limit",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":" DEF_OK ",\"max\":{\"cpu_ms\":2000,"
     "\"wall_ms\":4000,\"memory_mb\":128,\"pids\":-16,\"output_kb\":128,\"tmpfs_mb\":16}}}",
     "limits.max.pids", NULL},
    {"string limit",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":{\"cpu_ms\":\"1000\",\"wall_ms\":2000,"
     "\"memory_mb\":64,\"pids\":8,\"output_kb\":64,\"tmpfs_mb\":8},\"max\":" MAX_OK "}}",
     "limits.default.cpu_ms", NULL},
    {"float limit",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":{\"cpu_ms\":1000,\"wall_ms\":2000.5,"
     "\"memory_mb\":64,\"pids\":8,\"output_kb\":64,\"tmpfs_mb\":8},\"max\":" MAX_OK "}}",
     "limits.default.wall_ms", NULL},
    {"limit above 2^40",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":" DEF_OK ",\"max\":{\"cpu_ms\":"
     "1099511627777,\"wall_ms\":4000,\"memory_mb\":128,\"pids\":16,\"output_kb\":128,"
     "\"tmpfs_mb\":16}}}",
     "limits.max.cpu_ms", NULL},
    {"pids maximum below the jail's two tasks",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":{\"cpu_ms\":1000,\"wall_ms\":2000,"
     "\"memory_mb\":64,\"pids\":1,\"output_kb\":64,\"tmpfs_mb\":8},\"max\":{\"cpu_ms\":2000,"
     "\"wall_ms\":4000,\"memory_mb\":128,\"pids\":1,\"output_kb\":128,\"tmpfs_mb\":16}}}",
     "limits.max.pids", "below 2"},
    {"pids default below the jail's two tasks",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":{\"cpu_ms\":1000,\"wall_ms\":2000,"
     "\"memory_mb\":64,\"pids\":1,\"output_kb\":64,\"tmpfs_mb\":8},\"max\":" MAX_OK "}}",
     "limits.default.pids", "below 2"},
    {"default above max",
     "{" INTERP "," SECCOMP ",\"limits\":{\"default\":{\"cpu_ms\":1000,\"wall_ms\":2000,"
     "\"memory_mb\":64,\"pids\":8,\"output_kb\":64,\"tmpfs_mb\":17},\"max\":" MAX_OK "}}",
     "limits.default.tmpfs_mb", "above"},
    {"missing seccomp", "{" INTERP "," LIMITS "}", "seccomp", "missing"},
    {"seccomp with a slash",
     "{" INTERP ",\"seccomp\":\"../policies/python.seccomp.json\"," LIMITS "}", "seccomp", NULL},
    {"seccomp absolute", "{" INTERP ",\"seccomp\":\"/etc/passwd\"," LIMITS "}", "seccomp", NULL},
    {"seccomp empty", "{" INTERP ",\"seccomp\":\"\"," LIMITS "}", "seccomp", NULL},
    {"seccomp not a string", "{" INTERP ",\"seccomp\":[\"s.seccomp.json\"]," LIMITS "}", "seccomp",
     NULL},
};

START_TEST(test_bad_profile)
{
	const struct bad_profile *c = &bad[_i];
	struct profile p;
	char err[1024];
	memset(&p, 0x5a, sizeof p);
	int rc = load(c->text, &p, err, sizeof err);
	ck_assert_msg(rc == -1, "%s: accepted", c->what);
	ck_assert_msg(strstr(err, "prof.json") != NULL, "%s: message does not name the file: %s",
		      c->what, err);
	ck_assert_msg(strstr(err, c->field) != NULL, "%s: message does not name \"%s\": %s",
		      c->what, c->field, err);
	if (c->field2)
		ck_assert_msg(strstr(err, c->field2) != NULL,
			      "%s: message does not mention \"%s\": %s", c->what, c->field2, err);
	/* A refused profile holds nothing: freeing it again is harmless. */
	ck_assert_uint_eq(p.nargs, 0);
	ck_assert_uint_eq(p.n_ro, 0);
	ck_assert_ptr_null(p.seccomp.insns);
	profile_free(&p);
}
END_TEST

/* BUG probe: a seccomp file that does not exist is reported by
 * scmp_load_file as "<dir>/nope.json: No such file or directory", naming
 * neither the profile file nor its "seccomp" field. */
START_TEST(test_seccomp_missing_file_named)
{
	struct profile p;
	char err[1024];
	ck_assert_int_eq(
	    load("{" INTERP ",\"seccomp\":\"nope.json\"," LIMITS "}", &p, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "nope.json") != NULL, "missing file not named: %s", err);
	ck_assert_msg(strstr(err, "prof.json") != NULL, "profile file not named: %s", err);
	ck_assert_msg(strstr(err, "seccomp") != NULL, "field not named: %s", err);
}
END_TEST

/* A seccomp file that exists but is broken names the seccomp file and its
 * field (the seccomp loader's own message). */
START_TEST(test_seccomp_broken_file)
{
	struct profile p;
	char err[1024];
	write_text(dpath("broken.seccomp.json"), "{\"defaultAction\":\"SCMP_ACT_NOPE\"}", 0644);
	ck_assert_int_eq(load("{" INTERP ",\"seccomp\":\"broken.seccomp.json\"," LIMITS "}", &p,
			      err, sizeof err),
			 -1);
	ck_assert_msg(strstr(err, "broken.seccomp.json") != NULL, "%s", err);
	ck_assert_msg(strstr(err, "defaultAction") != NULL, "%s", err);
	ck_assert_ptr_null(p.seccomp.insns);
}
END_TEST

/* BUG probe: access(X_OK) succeeds on a directory, so a directory is
 * accepted as the interpreter; every job would then fail at execve. */
START_TEST(test_interpreter_directory_refused)
{
	struct profile p;
	char err[1024];
	int rc = load("{\"interpreter\":\"/usr/bin\"," SECCOMP "," LIMITS "}", &p, err, sizeof err);
	if (rc == 0)
		profile_free(&p);
	ck_assert_msg(rc == -1, "a directory (/usr/bin) was accepted as the interpreter");
	ck_assert_msg(strstr(err, "prof.json") && strstr(err, "interpreter"), "%s", err);
}
END_TEST

/* ---- directories ---------------------------------------------------------- */

static void make_subdir(const char *name)
{
	ck_assert_int_eq(mkdir(dpath(name), 0755), 0);
	char to[PATH_MAX];
	snprintf(to, sizeof to, "%s/%s/s.seccomp.json", g_dir, name);
	copy_file(SECCOMP_SRC, to);
}

static void write_in(const char *sub, const char *file, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s/%s", g_dir, sub, file);
	write_text(path, text, 0644);
}

START_TEST(test_dir_without_python)
{
	make_subdir("nopython");
	write_in("nopython", "other.json", VALID);
	struct profile_set set;
	char err[1024] = "";
	ck_assert_int_eq(profile_load_dir(dpath("nopython"), false, &set, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "python.json") != NULL, "%s", err);
	ck_assert_ptr_null(set.v);
	ck_assert_uint_eq(set.n, 0);
}
END_TEST

START_TEST(test_dir_empty)
{
	make_subdir("empty"); /* only s.seccomp.json: not a profile */
	struct profile_set set;
	char err[1024] = "";
	ck_assert_int_eq(profile_load_dir(dpath("empty"), false, &set, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "python.json") != NULL, "%s", err);
}
END_TEST

START_TEST(test_dir_with_broken_profile)
{
	make_subdir("broken");
	write_in("broken", "python.json", VALID);
	write_in("broken", "zz-broken.json", "{" INTERP "," SECCOMP "}");
	struct profile_set set;
	char err[1024] = "";
	ck_assert_int_eq(profile_load_dir(dpath("broken"), false, &set, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "zz-broken.json") != NULL, "%s", err);
	ck_assert_msg(strstr(err, "limits") != NULL, "%s", err);
	ck_assert_ptr_null(set.v);
	ck_assert_uint_eq(set.n, 0);
}
END_TEST

START_TEST(test_dir_with_invalid_json)
{
	make_subdir("badjson");
	write_in("badjson", "python.json", VALID);
	write_in("badjson", "bad.json", "{not json");
	struct profile_set set;
	char err[1024] = "";
	ck_assert_int_eq(profile_load_dir(dpath("badjson"), false, &set, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "bad.json") != NULL, "%s", err);
}
END_TEST

START_TEST(test_dir_good)
{
	make_subdir("good");
	write_in("good", "python.json", VALID);
	write_in("good", "py2.json", VALID);
	write_in("good", "notes.txt", "not a profile");
	struct profile_set set;
	char err[1024] = "";
	int rc = profile_load_dir(dpath("good"), false, &set, err, sizeof err);
	ck_assert_msg(rc == 0, "%s", err);
	/* *.seccomp.json and other files are not profiles. */
	ck_assert_uint_eq(set.n, 2);
	ck_assert_ptr_nonnull(profile_find(&set, "python"));
	ck_assert_ptr_nonnull(profile_find(&set, "py2"));
	ck_assert_ptr_eq(profile_find(&set, NULL), profile_find(&set, "python"));
	ck_assert_ptr_null(profile_find(&set, "s.seccomp"));
	ck_assert_ptr_null(profile_find(&set, "s"));
	profile_set_free(&set);
}
END_TEST

START_TEST(test_dir_missing)
{
	struct profile_set set;
	char err[1024] = "";
	ck_assert_int_eq(profile_load_dir(dpath("does-not-exist"), false, &set, err, sizeof err),
			 -1);
	ck_assert_msg(strstr(err, "does-not-exist") != NULL, "%s", err);
	ck_assert_uint_eq(set.n, 0);
}
END_TEST

/* ---- limits_resolve ------------------------------------------------------- */

static struct profile g_prof;

static void load_prof(void)
{
	char err[1024];
	int rc = load(VALID, &g_prof, err, sizeof err);
	ck_assert_msg(rc == 0, "%s", err);
}

static void free_prof(void)
{
	profile_free(&g_prof);
}

START_TEST(test_resolve_unset)
{
	struct proto_limits req = PROTO_LIMITS_UNSET, out;
	char msg[128] = "";
	ck_assert_msg(limits_resolve(&req, &g_prof, &out, msg, sizeof msg) == 0, "%s", msg);
	for (int i = 0; i < PROTO_NLIMITS; i++)
		if (proto_limit_ref(&out, i) != &out.case_cpu_ms &&
		    proto_limit_ref(&out, i) != &out.case_wall_ms)
			ck_assert_int_eq(proto_limit_get(&out, i),
					 proto_limit_get(&g_prof.defaults, i));
	/* A case may use the whole request's limits, no more. */
	ck_assert_int_eq(out.case_cpu_ms, out.cpu_ms);
	ck_assert_int_eq(out.case_wall_ms, out.wall_ms);
}
END_TEST

START_TEST(test_resolve_kept_and_clamped)
{
	/* below max, equal to max, above max, far above, unset, 1 */
	struct proto_limits req = {1500, 4000, 129, 1L << 40, -1, 1, -1, -1, -1}, out;
	char msg[128] = "";
	ck_assert_msg(limits_resolve(&req, &g_prof, &out, msg, sizeof msg) == 0, "%s", msg);
	ck_assert_int_eq(out.cpu_ms, 1500);
	ck_assert_int_eq(out.wall_ms, 4000);
	ck_assert_int_eq(out.memory_mb, 128);
	ck_assert_int_eq(out.pids, 16);
	ck_assert_int_eq(out.output_kb, 64);
	ck_assert_int_eq(out.tmpfs_mb, 1);
	ck_assert_int_eq(out.cpus, 1);
	/* Above the default but below the max is the client's to choose. */
	struct proto_limits req2 = {1999, 3999, 127, 15, 127, 15, 1999, 3000, 1};
	ck_assert_int_eq(limits_resolve(&req2, &g_prof, &out, msg, sizeof msg), 0);
	for (int i = 0; i < PROTO_NLIMITS; i++)
		ck_assert_int_eq(proto_limit_get(&out, i), proto_limit_get(&req2, i));
}
END_TEST

/* cpu_ms raised without wall_ms: the wall limit follows at twice the CPU
 * limit, never below its default and never above its maximum; a wall_ms the
 * request gives is kept as it is. */
START_TEST(test_resolve_wall_follows_cpu)
{
	struct proto_limits req = PROTO_LIMITS_UNSET, out;
	char msg[128] = "";
	long dwall = g_prof.defaults.wall_ms, mwall = g_prof.maxima.wall_ms;
	ck_assert_int_gt(g_prof.maxima.cpu_ms, dwall / 2); /* the profile lets it matter */
	/* Small CPU limit: the default wall limit stays. */
	req.cpu_ms = 1;
	ck_assert_int_eq(limits_resolve(&req, &g_prof, &out, msg, sizeof msg), 0);
	ck_assert_int_eq(out.wall_ms, dwall);
	/* Above half the default wall limit: twice the CPU limit, clamped. */
	req.cpu_ms = dwall / 2 + 1;
	ck_assert_int_eq(limits_resolve(&req, &g_prof, &out, msg, sizeof msg), 0);
	ck_assert_int_eq(out.wall_ms, 2 * out.cpu_ms > mwall ? mwall : 2 * out.cpu_ms);
	ck_assert_int_ge(out.wall_ms, dwall);
	req.cpu_ms = 1L << 40; /* clamped to the CPU maximum first */
	ck_assert_int_eq(limits_resolve(&req, &g_prof, &out, msg, sizeof msg), 0);
	ck_assert_int_eq(out.cpu_ms, g_prof.maxima.cpu_ms);
	ck_assert_int_le(out.wall_ms, mwall);
	/* A wall_ms given by the request is kept. */
	req.cpu_ms = dwall / 2 + 1;
	req.wall_ms = 1;
	ck_assert_int_eq(limits_resolve(&req, &g_prof, &out, msg, sizeof msg), 0);
	ck_assert_int_eq(out.wall_ms, 1);
}
END_TEST

/* stdio's case limits: clamped to the request's cpu_ms and wall_ms (which
 * bound every case together), kept below them, and a profile's own case
 * default applies when the request leaves them out. */
START_TEST(test_resolve_case_limits)
{
	struct proto_limits req = PROTO_LIMITS_UNSET, out;
	char msg[256] = "";
	req.cpu_ms = 1500;
	req.wall_ms = 3000;
	req.case_cpu_ms = 1800;
	req.case_wall_ms = 500;
	ck_assert_msg(limits_resolve(&req, &g_prof, &out, msg, sizeof msg) == 0, "%s", msg);
	ck_assert_int_eq(out.case_cpu_ms, 1500);
	ck_assert_int_eq(out.case_wall_ms, 500);
	req.case_cpu_ms = 0;
	ck_assert_int_eq(limits_resolve(&req, &g_prof, &out, msg, sizeof msg), -1);
	ck_assert_str_eq(msg, "limit \"case_cpu_ms\" must be positive");
	struct profile p;
	char err[512];
	const char *text = "{" INTERP "," SECCOMP ",\"limits\":{\"default\":{\"cpu_ms\":1000,"
			   "\"wall_ms\":2000,\"memory_mb\":64,\"pids\":8,\"output_kb\":64,"
			   "\"tmpfs_mb\":8,\"case_wall_ms\":700},\"max\":" MAX_OK "}}";
	ck_assert_msg(load(text, &p, err, sizeof err) == 0, "%s", err);
	struct proto_limits unset = PROTO_LIMITS_UNSET;
	ck_assert_int_eq(limits_resolve(&unset, &p, &out, msg, sizeof msg), 0);
	ck_assert_int_eq(out.case_wall_ms, 700);
	ck_assert_int_eq(out.case_cpu_ms, 1000);
	ck_assert_int_eq(p.maxima.case_wall_ms, p.maxima.wall_ms);
	profile_free(&p);
}
END_TEST

/* The job's pid 1 counts in its cgroup: a pids limit of 1 could start no
 * cold job and would let a warm one run above its limit, so it is raised
 * to 2 (and shown so in the response's limits); 2 and more are kept. */
START_TEST(test_resolve_pids_floor)
{
	struct proto_limits req = PROTO_LIMITS_UNSET, out;
	char msg[128] = "";
	req.pids = 1;
	ck_assert_msg(limits_resolve(&req, &g_prof, &out, msg, sizeof msg) == 0, "%s", msg);
	ck_assert_int_eq(out.pids, LIMITS_PIDS_MIN);
	ck_assert_int_eq(LIMITS_PIDS_MIN, 2);
	for (long v = 2; v <= 3; v++) {
		req.pids = v;
		ck_assert_int_eq(limits_resolve(&req, &g_prof, &out, msg, sizeof msg), 0);
		ck_assert_int_eq(out.pids, v);
	}
}
END_TEST

START_TEST(test_resolve_non_positive)
{
	static const long vals[] = {0, -2, -1000, LONG_MIN};
	for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++)
		for (int i = 0; i < PROTO_NLIMITS; i++) {
			struct proto_limits req = PROTO_LIMITS_UNSET, out;
			char msg[128] = "";
			*proto_limit_ref(&req, i) = vals[k];
			ck_assert_msg(limits_resolve(&req, &g_prof, &out, msg, sizeof msg) == -1,
				      "%s = %ld accepted", proto_limit_names[i], vals[k]);
			ck_assert_msg(strstr(msg, proto_limit_names[i]) != NULL, "%s", msg);
		}
}
END_TEST

static Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");

	TCase *shipped = tcase_create("shipped");
	tcase_add_test(shipped, test_shipped_python);
	suite_add_tcase(s, shipped);

	TCase *text = tcase_create("text");
	tcase_add_unchecked_fixture(text, setup_dir, teardown_dir);
	tcase_add_test(text, test_valid_text);
	tcase_add_test(text, test_defaults_equal_max_and_bound);
	tcase_add_test(text, test_interpreter_under_readonly_path);
	tcase_add_test(text, test_bin_sh_covered_by_readonly_bin);
	tcase_add_test(text, test_file_name_rules);
	tcase_add_loop_test(text, test_bad_profile, 0, (int)(sizeof bad / sizeof bad[0]));
	tcase_add_test(text, test_seccomp_missing_file_named);
	tcase_add_test(text, test_cpus_limit);
	tcase_add_test(text, test_seccomp_broken_file);
	tcase_add_test(text, test_interpreter_directory_refused);
	suite_add_tcase(s, text);

	TCase *dir = tcase_create("dir");
	tcase_add_unchecked_fixture(dir, setup_dir, teardown_dir);
	tcase_add_test(dir, test_dir_without_python);
	tcase_add_test(dir, test_dir_empty);
	tcase_add_test(dir, test_dir_with_broken_profile);
	tcase_add_test(dir, test_dir_with_invalid_json);
	tcase_add_test(dir, test_dir_good);
	tcase_add_test(dir, test_dir_missing);
	suite_add_tcase(s, dir);

	TCase *resolve = tcase_create("limits_resolve");
	tcase_add_unchecked_fixture(resolve, setup_dir, teardown_dir);
	tcase_add_checked_fixture(resolve, load_prof, free_prof);
	tcase_add_test(resolve, test_resolve_unset);
	tcase_add_test(resolve, test_resolve_kept_and_clamped);
	tcase_add_test(resolve, test_resolve_non_positive);
	tcase_add_test(resolve, test_resolve_pids_floor);
	tcase_add_test(resolve, test_resolve_wall_follows_cpu);
	tcase_add_test(resolve, test_resolve_case_limits);
	suite_add_tcase(s, resolve);
	return s;
}

int main(void)
{
	return tmain(profile_suite, NULL);
}
