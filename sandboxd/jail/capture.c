/* Output and result capture for the supervisor (capture.h). */
#include "sandboxd/jail/capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/records.h"

/* Keeps the prefix of the buffer that fits both caps; 1 when some did not. */
int capture_meter(struct capture_stream *s, bool final)
{
	size_t other = *s->total - s->m.enc, cap = s->cap;
	if (s->total_cap < other + cap)
		cap = s->total_cap > other ? s->total_cap - other : 0;
	size_t keep = text_json_meter(&s->m, *s->buf ? *s->buf : "", *s->len, cap, final);
	*s->total = other + s->m.enc;
	if (keep == *s->len)
		return 0;
	*s->len = keep;
	*s->trunc = true;
	return 1;
}

/* Returns 1 when the cap was exceeded, 0 otherwise (EOF closes the fd). */
int capture_read_stream(struct capture_stream *s)
{
	char tmp[65536];
	ssize_t n = read(s->fd, tmp, sizeof tmp);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		close(s->fd);
		s->fd = -1;
		/* Only a cut sequence at the very end can go (marked truncated);
		 * no kill: the job may be reaped already, its pid reused. */
		capture_meter(s, true);
		return 0;
	}
	/* A byte encodes to at least one: the raw bytes never need more room
	 * than the encoded cap. */
	size_t room = s->cap - *s->len, take = (size_t)n < room ? (size_t)n : room;
	if (take) {
		if (!*s->buf)
			*s->buf = malloc(s->cap + 1);
		if (*s->buf) {
			memcpy(*s->buf + *s->len, tmp, take);
			*s->len += take;
		}
	}
	if (capture_meter(s, false) || (size_t)n > take) {
		*s->trunc = true;
		return 1;
	}
	return 0;
}

void capture_read_results(struct capture_results *rs, const struct jail_hooks *h)
{
	char tmp[65536];
	ssize_t n = read(rs->fd, tmp, sizeof tmp);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		close(rs->fd);
		rs->fd = -1;
		return;
	}
	/* Past the total bound the channel is drained but no longer parsed, so a
	 * flood can neither block the job nor grow the daemon. */
	if (rs->total > REC_TOTAL_MAX || !h)
		return;
	rs->total += (size_t)n;
	uint64_t now = clock_mono_ns();
	for (ssize_t i = 0; i < n; i++) {
		char ch = tmp[i];
		if (ch == '\n') {
			if (!rs->skipping)
				h->on_record(h->ctx, rs->buf ? rs->buf : "", rs->len, now);
			else
				h->on_record(h->ctx, NULL, 0, now); /* counted as a bad record */
			rs->skipping = false;
			rs->len = 0;
			continue;
		}
		if (rs->skipping)
			continue;
		if (rs->len == REC_LINE_MAX) {
			rs->skipping = true;
			continue;
		}
		if (!rs->buf && !(rs->buf = malloc(REC_LINE_MAX)))
			return;
		rs->buf[rs->len++] = ch;
	}
}
