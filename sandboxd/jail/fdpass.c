#include "sandboxd/jail/fdpass.h"

#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int fdpass_send(int sock, int fd, char tag)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char byte = tag;
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

static int fdpass_send_open(int sock, const char *path, int flags, char tag)
{
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fdpass_send(sock, fd, tag);
	close(fd);
	return rc;
}

int fdpass_send_dir(int sock, const char *path, char tag)
{
	return fdpass_send_open(sock, path, O_PATH | O_DIRECTORY | O_NOFOLLOW, tag);
}

/* One name for both: what is opened ahead is what would be sent. */
static const char MNTNS_PATH[] = "/proc/self/ns/mnt";

int fdpass_open_mntns(void)
{
	return open(MNTNS_PATH, O_RDONLY | O_CLOEXEC);
}

int fdpass_send_mntns(int sock)
{
	return fdpass_send_open(sock, MNTNS_PATH, O_RDONLY, FDPASS_MNTNS);
}

int fdpass_recv(int sock, int flags, char *tag)
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
	*tag = byte;
	return fd;
}
