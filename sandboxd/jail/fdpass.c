#include "sandboxd/jail/fdpass.h"

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int fdpass_send(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char byte = 'L';
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	memset(cbuf, 0, sizeof cbuf);
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int fdpass_recv(int sock, int flags)
{
	char cbuf[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | flags) <= 0)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(c), sizeof fd);
	return fd;
}
