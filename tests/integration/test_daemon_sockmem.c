/* Socket buffers count against the job's memory limit, on cgroup v1 and v2:
 * the TCP attack of tests/hostile/res_tcp_buffers.py (loopback connections
 * filled, never read) run by a 64 MB job. What the kernel says the job's
 * sockets held must stay within memory_mb, and must show in memory_kb (v2:
 * memory.peak counts socket memory; v1: the daemon adds the socket-buffer
 * counter's peak), so the job pays for it rather than the host. Before v1's
 * memory.kmem.tcp limit, the job held 715 MB with memory_kb 6140. Run as root
 * from the repository root (make integration). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "tests/helpers/daemon.h"
#include "tests/helpers/skip.h"
#include "tests/helpers/tcheck.h"
#include "tests/helpers/tmain.h"

#define TIMEOUT_S 90
#define CALL_MS 60000
#define PROG "tests/hostile/res_tcp_buffers.py"

START_TEST(test_tcp_buffers_charged)
{
	struct test_daemon d;
	char err[256], why[256];
	if (!sbx_have_socket_memcg(why, sizeof why))
		SKIP_TEST("%s", why);
	size_t len;
	char *code = file_read_all(PROG, 1 << 20, &len, err, sizeof err);
	ck_assert_msg(code, "%s: %s", PROG, err);
	START(d, "--workers", "1");
	json_t *req = job("tcp", code);
	free(code);
	json_t *l = json_pack("{s:i,s:i,s:i}", "memory_mb", 64, "wall_ms", 20000, "cpu_ms", 15000);
	json_object_set_new(req, "limits", l);
	json_t *r = run1(&d, req, CALL_MS);
	SKIP_UNLESS_CGROUP(r, "memory_mb", d, "charging socket buffers");
	const char *v = sget(r, "verdict");
	CHECK_R(r, streq(v, "pass") || streq(v, "memory_limit"));
	long long mem_kb = iget2(r, "usage", "memory_kb"), sent = -1, held = -1;
	const char *out = sget(r, "stdout");
	const char *at = out ? strstr(out, "sent ") : NULL;
	/* Ended for memory (v1: the daemon's watch of pages plus socket buffers;
	 * v2: the OOM kill): the limit named is memory, from the cgroup's
	 * evidence, and the peak it reports is within reach of the limit. */
	if (streq(v, "memory_limit")) {
		CHECK_R(r, streq(sget(r, "limit_hit"), "memory"));
		CHECK_RM(r, mem_kb > 0 && mem_kb <= (64 + 16) * 1024,
			 "memory_kb %lld for a 64 MB job ended for memory", mem_kb);
	}
	if (streq(v, "pass")) {
		CHECK_R(r, at && sscanf(at, "sent %lld MB, queued in the kernel %lld MB", &sent,
					&held) == 2);
		/* Bounded: the job's sockets held no more than its limit. */
		CHECK_RM(r, held <= 64, "a 64 MB job queued %lld MB in TCP buffers", held);
		/* Charged: the job's memory peak covers what its sockets held. */
		CHECK_RM(r, mem_kb >= held * 1024, "%lld MB queued, memory_kb only %lld", held,
			 mem_kb);
	}
	json_decref(r);
	stop_ok(&d);
}
END_TEST

static Suite *daemon_sockmem_suite(void)
{
	Suite *s = suite_create("daemon_sockmem");
	TCase *t = tmain_tcase(s, "sockmem", TIMEOUT_S);
	tcase_add_test(t, test_tcp_buffers_charged);
	return s;
}

int main(void)
{
	static const struct tmain_opts opts = {
	    .root = true, .daemon = true, .no_preload = true, .tmpdir = "sbx-integ"};
	return tmain(daemon_sockmem_suite, &opts);
}
