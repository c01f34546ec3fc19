/* Unit tests for the job description that crosses from the daemon to
 * sandboxd-init (sandboxd/jail/jail_wire.c): a spec survives the round trip
 * field by field, with and without the runner and the peer; a warm job's names
 * the runner without its bytes; every truncation
 * and every single-byte change of a blob is either refused or decodes to
 * something bounded, never read out of bounds (run under `make asan` too);
 * and only a sealed memfd is mapped (jail_wire_map) or read (jail_wire_load,
 * which maps one larger than its buffer). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/jail_internal.h"
#include "tests/helpers/tmain.h"

static struct sock_filter insns[3] = {
    {0x20, 0, 0, 4}, {0x15, 0, 1, 0xc000003e}, {0x06, 0, 0, 0x7fff0000}};
static struct scmp_prog prog = {insns, 3, true};
static const char *const ro[] = {"/etc/python3.11", "/opt/x"};
static const char *const args[] = {"-I", "-S"};
static const char *const peer[] = {"-I", "/sandboxd/candidate.py", "arg with space"};
static const struct jail_file files[] = {
    {"a.txt", "hello", 5}, {"dir/b.bin", "x\0y\n", 4}, {"empty", "", 0}};

static struct jail_job make_job(bool with_peer)
{
	struct jail_job j = {.lim = {1000, 2000, 256, 32, 64, 8},
			     .interpreter = "/usr/bin/python3.11",
			     .args = args,
			     .nargs = 2,
			     .ro_paths = ro,
			     .n_ro = 2,
			     .seccomp = &prog,
			     .code = "print('hi')\n",
			     .code_len = 12,
			     .stdin_data = "secret stdin",
			     .stdin_len = 12,
			     .files = files,
			     .nfiles = 3};
	if (with_peer) {
		j.peer_args = peer;
		j.npeer_args = 3;
		j.peer_uid = 5002;
		j.peer_gid = 5003;
	}
	return j;
}

static void check_same(const struct jail_spec *a, const struct jail_spec *b)
{
	ck_assert_mem_eq(&a->lim, &b->lim, sizeof a->lim);
	ck_assert_int_eq(a->uid, b->uid);
	ck_assert_int_eq(a->gid, b->gid);
	ck_assert_int_eq(a->use_cgroup, b->use_cgroup);
	ck_assert_int_eq(a->runner, b->runner);
	ck_assert_int_eq(a->main_py, b->main_py);
	ck_assert_str_eq(a->root_dir, b->root_dir);
	ck_assert_str_eq(a->root_opts, b->root_opts);
	ck_assert_str_eq(a->tmpfs_opts, b->tmpfs_opts);
	ck_assert_str_eq(a->work_opts, b->work_opts);
	ck_assert_str_eq(a->passwd, b->passwd);
	ck_assert_str_eq(a->group, b->group);
	ck_assert_int_eq(a->rl.n, b->rl.n);
	ck_assert_mem_eq(a->rl.value, b->rl.value, sizeof a->rl.value[0] * (size_t)a->rl.n);
	for (size_t i = 0; a->argv[i] || b->argv[i]; i++)
		ck_assert_str_eq(a->argv[i], b->argv[i]);
	for (size_t i = 0; a->envp[i] || b->envp[i]; i++)
		ck_assert_str_eq(a->envp[i], b->envp[i]);
	ck_assert_int_eq(a->job->n_ro, b->job->n_ro);
	for (size_t i = 0; i < a->job->n_ro; i++)
		ck_assert_str_eq(a->job->ro_paths[i], b->job->ro_paths[i]);
	ck_assert_int_eq(a->job->nfiles, b->job->nfiles);
	for (size_t i = 0; i < a->job->nfiles; i++) {
		ck_assert_str_eq(a->job->files[i].path, b->job->files[i].path);
		ck_assert_int_eq(a->job->files[i].len, b->job->files[i].len);
		ck_assert_mem_eq(a->job->files[i].data, b->job->files[i].data,
				 a->job->files[i].len);
	}
	ck_assert_int_eq(a->job->seccomp->len, b->job->seccomp->len);
	ck_assert_int_eq(a->job->seccomp->notify, b->job->seccomp->notify);
	ck_assert_mem_eq(a->job->seccomp->insns, b->job->seccomp->insns,
			 sizeof(struct sock_filter) * a->job->seccomp->len);
	ck_assert_int_eq(a->peer, b->peer);
	for (size_t i = 0; a->peer && (a->peer_argv[i] || b->peer_argv[i]); i++)
		ck_assert_str_eq(a->peer_argv[i], b->peer_argv[i]);
	if (a->peer) {
		ck_assert_int_eq(a->job->peer_uid, b->job->peer_uid);
		ck_assert_int_eq(a->job->peer_gid, b->job->peer_gid);
		ck_assert_int_eq(a->job->npeer_args, b->job->npeer_args);
	}
}

/* A plain job's spec (s, from j) and its encoded description. */
static char *plain_blob(struct jail_job *j, struct jail_spec *s, size_t *len)
{
	*j = make_job(false);
	ck_assert_int_eq(jail_spec_init(s, j, 4001, 4001, "/run/x/root", true), 0);
	char *blob = jail_wire_encode(s, len);
	ck_assert_ptr_nonnull(blob);
	return blob;
}

START_TEST(test_round_trip_plain)
{
	struct jail_job j;
	struct jail_spec s, d;
	size_t len;
	char *blob = plain_blob(&j, &s, &len);
	ck_assert_int_eq(jail_wire_decode(blob, len, &d), 0);
	check_same(&s, &d);
	ck_assert_int_eq(d.code_len, 12);
	ck_assert_mem_eq(d.code, "print('hi')\n", 12);
	/* Neither the stdin (its own pipe) nor anything of it is in the blob. */
	ck_assert_ptr_null(memmem(blob, len, "secret stdin", 12));
	ck_assert_int_eq(d.stdin_len, 0);
	jail_wire_free(&d);
	free(blob);
}
END_TEST

START_TEST(test_round_trip_runner_and_peer)
{
	struct jail_job j = make_job(true);
	struct jail_spec s, d;
	ck_assert_int_eq(jail_spec_init(&s, &j, 4001, 4001, "/run/x/root", false), 0);
	jail_spec_use_runner(&s, "RUNNER SOURCE", 13, 0x1234, "{\"tests\":[]}", 12,
			     "0123456789abcdef0123456789abcdef", 42);
	ck_assert(strstr(s.work_opts, "uid=5002,gid=5003"));
	size_t len;
	char *blob = jail_wire_encode(&s, &len);
	ck_assert_ptr_nonnull(blob);
	ck_assert_int_eq(jail_wire_decode(blob, len, &d), 0);
	check_same(&s, &d);
	ck_assert_mem_eq(d.runner_src, "RUNNER SOURCE", 13);
	ck_assert_uint_eq(d.runner_len, 13);
	ck_assert_uint_eq(d.runner_sum, 0x1234);
	ck_assert_mem_eq(d.job_json, "{\"tests\":[]}", 12);
	ck_assert_str_eq(d.peer_argv[0], "/usr/bin/python3.11");
	ck_assert_ptr_null(d.peer_argv[4]);
	/* The key travels on its own pipe, never in the description. */
	ck_assert_ptr_null(memmem(blob, len, "0123456789abcdef", 16));
	jail_wire_free(&d);
	free(blob);
}
END_TEST

/* A "main" job (the runner runs /work/main.py): the code travels, as for a
 * plain run; without main_py a runner's description has none. */
START_TEST(test_round_trip_runner_main)
{
	struct jail_job j = make_job(false);
	struct jail_spec s, d;
	ck_assert_int_eq(jail_spec_init(&s, &j, 4001, 4001, "/run/x/root", true), 0);
	jail_spec_use_runner(&s, "RUNNER SOURCE", 13, 0x1234, "{\"format\":\"main\"}", 17,
			     "0123456789abcdef0123456789abcdef", 7);
	for (int main_py = 0; main_py < 2; main_py++) {
		s.main_py = main_py;
		size_t len;
		char *blob = jail_wire_encode(&s, &len);
		ck_assert_ptr_nonnull(blob);
		ck_assert_int_eq(jail_wire_decode(blob, len, &d), 0);
		check_same(&s, &d);
		ck_assert_int_eq(d.code_len, main_py ? 12 : 0);
		if (main_py)
			ck_assert_mem_eq(d.code, "print('hi')\n", 12);
		jail_wire_free(&d);
		free(blob);
	}
}
END_TEST

/* A warm job's description names the runner (length, checksum) without its
 * bytes, which its server's tree holds; a server's and a cold job's carry
 * them. Bytes that disagree with the length named are refused. */
START_TEST(test_warm_job_names_the_runner)
{
	static const char src[] = "RUNNER SOURCE, long enough to look for";
	struct jail_job j = make_job(false);
	struct jail_spec s, d;
	ck_assert_int_eq(jail_spec_init(&s, &j, 4001, 4001, "/tmp", true), 0);
	jail_spec_use_runner(&s, src, sizeof src - 1, jail_runner_sum(src, sizeof src - 1),
			     "{\"tests\":[]}", 12, "0123456789abcdef0123456789abcdef", -1);
	ck_assert_uint_ne(s.runner_sum, jail_runner_sum(src, sizeof src - 2));
	for (int kind = 0; kind < 3; kind++) { /* cold job, server, warm job */
		s.zygote = kind == 1;
		s.warm = kind == 2;
		size_t len;
		char *blob = jail_wire_encode(&s, &len);
		ck_assert_ptr_nonnull(blob);
		ck_assert_int_eq(jail_wire_decode(blob, len, &d), 0);
		ck_assert_uint_eq(d.runner_len, sizeof src - 1);
		ck_assert_uint_eq(d.runner_sum, s.runner_sum);
		if (kind == 2) {
			ck_assert_ptr_null(d.runner_src);
			ck_assert_ptr_null(memmem(blob, len, src, sizeof src - 1));
		} else {
			ck_assert_mem_eq(d.runner_src, src, sizeof src - 1);
		}
		jail_wire_free(&d);
		free(blob);
	}
	/* Bytes of another length than the one named: refused. */
	s.warm = false;
	size_t len;
	char *blob = jail_wire_encode(&s, &len);
	ck_assert_ptr_nonnull(blob);
	char *at = memmem(blob, len, src, sizeof src - 1);
	ck_assert_ptr_nonnull(at);
	size_t after = (size_t)(at - blob) + (sizeof src - 1) + (8 - (sizeof src - 1) % 8);
	uint64_t named;
	memcpy(&named, blob + after, sizeof named);
	ck_assert_uint_eq(named, sizeof src - 1);
	named--;
	memcpy(blob + after, &named, sizeof named);
	ck_assert_int_lt(jail_wire_decode(blob, len, &d), 0);
	free(blob);
}
END_TEST

/* Every prefix is refused; every single-byte change is refused or decodes
 * within the blob (ASan would see a read past it). */
START_TEST(test_malformed_blobs)
{
	struct jail_job j = make_job(true);
	struct jail_spec s, d;
	ck_assert_int_eq(jail_spec_init(&s, &j, 4001, 4001, "/run/x/root", true), 0);
	size_t len;
	char *blob = jail_wire_encode(&s, &len);
	ck_assert_ptr_nonnull(blob);
	for (size_t n = 0; n < len; n++) {
		char *cut = malloc(n ? n : 1);
		memcpy(cut, blob, n);
		ck_assert_msg(jail_wire_decode(cut, n, &d) < 0, "a %zu-byte prefix decoded", n);
		free(cut);
	}
	int refused = 0;
	for (size_t i = 0; i < len; i++) {
		char *bad = malloc(len);
		memcpy(bad, blob, len);
		bad[i] ^= (char)0xa5;
		if (jail_wire_decode(bad, len, &d) < 0)
			refused++;
		else
			jail_wire_free(&d);
		free(bad);
	}
	/* Lengths, counts and the NULs after strings are checked: most flips
	 * are caught (the rest change a value, not the structure). */
	ck_assert_int_gt(refused, 0);
	free(blob);
}
END_TEST

/* What the init and the fork server map: the daemon's sealed memfd, and
 * nothing else (the same bytes unsealed, an empty file). */
START_TEST(test_map_needs_a_sealed_memfd)
{
	struct jail_job j = make_job(false);
	struct jail_spec s, d;
	ck_assert_int_eq(jail_spec_init(&s, &j, 4001, 4001, "/run/x/root", true), 0);
	void *m;
	size_t len;
	int fd = jail_wire_memfd(&s);
	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_null(jail_wire_map(fd, &d, &m, &len));
	check_same(&s, &d);
	jail_wire_free(&d);
	munmap(m, len);
	close(fd);
	size_t blen;
	char *blob = jail_wire_encode(&s, &blen);
	ck_assert_ptr_nonnull(blob);
	int open_fd = memfd_create("unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ck_assert_int_ge(open_fd, 0);
	ck_assert_int_eq(write(open_fd, blob, blen), (ssize_t)blen);
	const char *why = jail_wire_map(open_fd, &d, &m, &len);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, "job description not sealed");
	ck_assert_int_eq(errno, EPROTO);
	int empty = memfd_create("empty", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ck_assert_int_ge(empty, 0);
	ck_assert_int_eq(fcntl(empty, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW), 0);
	ck_assert_ptr_nonnull(jail_wire_map(empty, &d, &m, &len));
	close(open_fd);
	close(empty);
	free(blob);
}
END_TEST

/* A warm job's description is read into the fork server's buffer when it
 * fits and mapped when it does not; either way only when sealed, and the
 * bytes decode to the same spec. */
START_TEST(test_load_reads_what_fits)
{
	struct jail_job j;
	struct jail_spec s, d;
	size_t blen;
	char *blob = plain_blob(&j, &s, &blen);
	int fd = jail_wire_memfd(&s);
	ck_assert_int_ge(fd, 0);
	char *buf = malloc(blen + 1);
	ck_assert_ptr_nonnull(buf);
	void *m;
	size_t len;
	bool mapped = true;
	/* Exactly the description's size: read, into buf, byte for byte. */
	ck_assert_ptr_null(jail_wire_load(fd, buf, blen, &d, &m, &len, &mapped));
	ck_assert(!mapped);
	ck_assert_ptr_eq(m, buf);
	ck_assert_uint_eq(len, blen);
	ck_assert_mem_eq(buf, blob, blen);
	check_same(&s, &d);
	/* The decoded spec points into buf, not into a copy of its own. */
	ck_assert(d.code >= buf && d.code < buf + blen);
	jail_wire_free(&d);
	/* One byte too small: mapped instead, and the same spec. */
	ck_assert_ptr_null(jail_wire_load(fd, buf, blen - 1, &d, &m, &len, &mapped));
	ck_assert(mapped);
	ck_assert_ptr_ne(m, buf);
	ck_assert_uint_eq(len, blen);
	check_same(&s, &d);
	jail_wire_free(&d);
	munmap(m, len);
	close(fd);
	/* The same bytes unsealed are neither read nor mapped. */
	int open_fd = memfd_create("unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ck_assert_int_ge(open_fd, 0);
	ck_assert_int_eq(write(open_fd, blob, blen), (ssize_t)blen);
	const char *why = jail_wire_load(open_fd, buf, blen + 1, &d, &m, &len, &mapped);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, "job description not sealed");
	ck_assert_int_eq(errno, EPROTO);
	close(open_fd);
	/* A sealed description that does not decode is refused when read. */
	int bad = memfd_create("bad", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ck_assert_int_ge(bad, 0);
	ck_assert_int_eq(write(bad, blob, blen / 2), (ssize_t)(blen / 2));
	ck_assert_int_eq(fcntl(bad, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW), 0);
	why = jail_wire_load(bad, buf, blen + 1, &d, &m, &len, &mapped);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, "decoding the job description");
	close(bad);
	free(buf);
	free(blob);
}
END_TEST

static Suite *wire_suite(void)
{
	Suite *s = suite_create("jail_wire");
	TCase *t = tcase_create("wire");
	tcase_add_test(t, test_round_trip_plain);
	tcase_add_test(t, test_round_trip_runner_and_peer);
	tcase_add_test(t, test_round_trip_runner_main);
	tcase_add_test(t, test_warm_job_names_the_runner);
	tcase_add_test(t, test_malformed_blobs);
	tcase_add_test(t, test_map_needs_a_sealed_memfd);
	tcase_add_test(t, test_load_reads_what_fits);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(wire_suite, NULL);
}
