#include "sandboxd/jail/procfs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t procfs_read(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

pid_t procfs_first_child(pid_t pid)
{
	char path[96], buf[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	if (procfs_read(path, buf, sizeof buf) < 0)
		return -1;
	long child = strtol(buf, NULL, 10);
	return child > 0 ? (pid_t)child : -1;
}

long procfs_field(pid_t pid, int fd, const char *key)
{
	char path[96], buf[4096], want[32];
	if (fd >= 0)
		snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	else
		snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	/* Fields start a line: the file's first line has none before it. */
	buf[0] = '\n';
	if (procfs_read(path, buf + 1, sizeof buf - 1) < 0)
		return -1;
	snprintf(want, sizeof want, "\n%s", key);
	const char *p = strstr(buf, want);
	if (!p)
		return -1;
	p += strlen(want);
	if (*p != '\t' && *p != ' ')
		return -1;
	char *end;
	long v = strtol(p, &end, 10);
	return end == p ? -1 : v;
}
