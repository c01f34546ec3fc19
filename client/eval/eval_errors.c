/* How `sbx eval` stops: the first failure of the run wins (its status and
 * message), and the model commands' failures are counted against
 * --max-errors, so an endpoint that is down stops the run after a few turns
 * instead of filling the log with failed ones. */
#include "client/eval/eval_priv.h"

#include <string.h>

#include "client/eval/gen.h"

void eval_errors_stop(struct eval_ctx *c, int status, const char *msg)
{
	pthread_mutex_lock(&c->mu);
	if (!c->failed) {
		c->status = status;
		snprintf(c->err, sizeof c->err, "%s", msg);
	}
	c->failed = true;
	pthread_mutex_unlock(&c->mu);
}

bool eval_errors_stopping(struct eval_ctx *c)
{
	pthread_mutex_lock(&c->mu);
	bool stop = c->failed;
	pthread_mutex_unlock(&c->mu);
	return stop || gen_cancelled();
}

/* The last non-blank line of a command's stderr: where a traceback or a
 * client says what went wrong. */
static void last_line(const char *s, char *out, size_t len)
{
	const char *end = s + strlen(s);
	while (end > s && strchr(" \t\r\n", end[-1]))
		end--;
	const char *start = end;
	while (start > s && start[-1] != '\n')
		start--;
	snprintf(out, len, "%.*s", (int)(end - start), start);
}

/* Over the limit: more failures than the count, or than the rate of the
 * turns asked and the minimum both. */
static bool over_limit(const struct eval_opts *o, size_t errors, size_t asked)
{
	if (o->max_errors >= 0)
		return errors > (size_t)o->max_errors;
	return errors > EVAL_MIN_ERRORS && (double)errors > o->max_error_rate * (double)asked;
}

void eval_errors_count(struct eval_ctx *c, const struct eval_item *it, int turn, bool generator,
		       const char *why, const char *stderr_tail)
{
	pthread_mutex_lock(&c->mu);
	c->asked += generator;
	if (why && c->errors++ == 0) {
		char line[300];
		last_line(stderr_tail ? stderr_tail : "", line, sizeof line);
		snprintf(c->first_error, sizeof c->first_error,
			 "the %s for %s (%s, turn %d) %s%s%s",
			 generator ? "generator" : "verbal command", it->task->id, it->set->name,
			 turn, why, *line ? "; its stderr ends: " : " (nothing on stderr)", line);
	}
	bool stop = why && !c->failed && over_limit(c->o, c->errors, c->asked);
	if (stop) {
		char limit[64];
		if (c->o->max_errors >= 0)
			snprintf(limit, sizeof limit, "more than %ld", c->o->max_errors);
		else
			snprintf(limit, sizeof limit, "more than %g of the turns and %d",
				 c->o->max_error_rate, EVAL_MIN_ERRORS);
		snprintf(c->err, sizeof c->err,
			 "stopped: the model commands failed %zu times in %zu turns asked "
			 "(--max-errors: %s); the first: %s",
			 c->errors, c->asked, limit, c->first_error);
		c->status = EVAL_FAILED;
		c->failed = true;
	}
	pthread_mutex_unlock(&c->mu);
}
