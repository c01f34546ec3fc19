/* The status pipe's error record, written by the daemon's clone child
 * (jail.c) and by the job's init (jail_child.c, sandboxd/init/main.c). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sandboxd/jail/jail_internal.h"

void jail_report_error(int fd, const char *step)
{
	struct jail_msg m;
	memset(&m, 0, sizeof m);
	m.kind = JAIL_MSG_ERROR;
	m.err = errno;
	size_t n = strlen(step);
	memcpy(m.text, step, n < sizeof m.text - 1 ? n : sizeof m.text - 1);
	(void)!write(fd, &m, sizeof m);
}
