/* Unit tests for the fork server's control channel (sandboxd/jail/
 * warm_msg.c) and the warm flags of a job's description: a message carries
 * its kind and descriptors exactly; another kind, a second message or more
 * descriptors than the reader takes are refused, and every descriptor of
 * a refused message is closed (the daemon never keeps what a broken server
 * sent); zygote and warm survive the wire. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandboxd/jail/jail.h"
#include "sandboxd/jail/jail_internal.h"
#include "sandboxd/jail/warm_msg.h"
#include "tests/helpers/tmain.h"

static int open_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static void pair(int sv[2])
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
}

START_TEST(test_kind_and_descriptors)
{
	int sv[2], p[2], got[WJ_COUNT];
	pair(sv);
	ck_assert_int_eq(pipe(p), 0);
	int send_fds[3] = {p[0], p[1], sv[1]};
	ck_assert_int_eq(warm_msg_send(sv[0], WARM_JOB, send_fds, 3), 0);
	ck_assert_int_eq(warm_msg_recv(sv[1], WARM_JOB, got, WJ_COUNT), 3);
	/* The received write end reaches the original pipe. */
	ck_assert_int_eq(write(got[1], "x", 1), 1);
	char c;
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_ge(fcntl(got[i], F_GETFD), 0);
		ck_assert(fcntl(got[i], F_GETFD) & FD_CLOEXEC);
		close(got[i]);
	}
	/* None at all. */
	ck_assert_int_eq(warm_msg_send(sv[0], WARM_DONE, NULL, 0), 0);
	ck_assert_int_eq(warm_msg_recv(sv[1], WARM_DONE, got, 0), 0);
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(test_refused_messages_leak_nothing)
{
	int sv[2], got[WJ_COUNT];
	pair(sv);
	int before = open_fds();
	int dup1 = dup(sv[0]), dup2_ = dup(sv[0]);
	int fds[2] = {dup1, dup2_};
	/* Another kind than the one awaited. */
	ck_assert_int_eq(warm_msg_send(sv[0], WARM_READY, fds, 2), 0);
	ck_assert_int_eq(warm_msg_recv(sv[1], WARM_SPAWNED, got, 2), -1);
	ck_assert_int_eq(errno, EPROTO);
	/* More descriptors than the reader takes. */
	ck_assert_int_eq(warm_msg_send(sv[0], WARM_SPAWNED, fds, 2), 0);
	ck_assert_int_eq(warm_msg_recv(sv[1], WARM_SPAWNED, got, 1), -1);
	/* A longer message than one kind byte (a server speaking nonsense). */
	ck_assert_int_eq(send(sv[0], "SS", 2, 0), 2);
	ck_assert_int_eq(warm_msg_recv(sv[1], WARM_SPAWNED, got, 1), -1);
	close(dup1);
	close(dup2_);
	/* Every descriptor the refused messages carried was closed. */
	ck_assert_int_eq(open_fds(), before);
	/* Too many to send at all. */
	int many[17] = {0};
	ck_assert_int_eq(warm_msg_send(sv[0], WARM_JOB, many, 17), -1);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

static struct sock_filter insns[1] = {{0x06, 0, 0, 0x7fff0000}};
static struct scmp_prog prog = {insns, 1, false};

START_TEST(test_wire_keeps_warm_flags)
{
	static const char *const ro[] = {"/opt/x"};
	struct jail_job j = {.lim = {1000, 2000, 256, 32, 64, 8, 1},
			     .interpreter = "/usr/bin/python3",
			     .ro_paths = ro,
			     .n_ro = 1,
			     .seccomp = &prog,
			     .code = "pass\n",
			     .code_len = 5};
	for (int k = 0; k < 4; k++) {
		struct jail_spec s, d;
		ck_assert_int_eq(jail_spec_init(&s, &j, 61000, 61000, "/tmp", true), 0);
		s.zygote = k & 1;
		s.warm = k & 2;
		size_t len;
		void *blob = jail_wire_encode(&s, &len);
		ck_assert_ptr_nonnull(blob);
		ck_assert_int_eq(jail_wire_decode(blob, len, &d), 0);
		ck_assert_int_eq(d.zygote, s.zygote);
		ck_assert_int_eq(d.warm, s.warm);
		jail_wire_free(&d);
		free(blob);
	}
}
END_TEST

static Suite *warm_msg_suite(void)
{
	Suite *s = suite_create("warm_msg");
	TCase *t = tcase_create("msg");
	tcase_add_test(t, test_kind_and_descriptors);
	tcase_add_test(t, test_refused_messages_leak_nothing);
	tcase_add_test(t, test_wire_keeps_warm_flags);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(warm_msg_suite, NULL);
}
