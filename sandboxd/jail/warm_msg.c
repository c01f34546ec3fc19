/* The fork server's control messages (warm_msg.h), used on both sides. */
#include "sandboxd/jail/warm_msg.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define WARM_MAX_FDS 16

int warm_msg_send(int sock, const char *kind, const int *fds, int n)
{
	char cbuf[CMSG_SPACE(sizeof(int) * WARM_MAX_FDS)];
	struct iovec iov = {.iov_base = (void *)kind, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (n < 0 || n > WARM_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	if (n > 0) {
		memset(cbuf, 0, sizeof cbuf);
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
	}
	ssize_t w;
	while ((w = sendmsg(sock, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	return w == 1 ? 0 : -1;
}

int warm_msg_await(int sock)
{
	char b;
	ssize_t r;
	while ((r = recv(sock, &b, 1, MSG_PEEK)) < 0 && errno == EINTR)
		;
	return r > 0 ? 1 : r == 0 ? 0 : -1;
}

int warm_msg_recv(int sock, const char *kind, int *fds, int max)
{
	char cbuf[CMSG_SPACE(sizeof(int) * WARM_MAX_FDS)], byte = 0;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	ssize_t r;
	while ((r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	int n = 0, got[WARM_MAX_FDS];
	for (struct cmsghdr *c = r > 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k && n < WARM_MAX_FDS; i++)
			memcpy(&got[n++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}
	bool ok =
	    r == 1 && byte == kind[0] && !(mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) && n <= max;
	for (int i = 0; i < n; i++) {
		if (ok)
			fds[i] = got[i];
		else
			close(got[i]);
	}
	if (!ok) {
		errno = EPROTO;
		return -1;
	}
	return n;
}
