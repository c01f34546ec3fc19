/* The response's "timing" (asked for with the request field of that name):
 * the request's way through the daemon cut into phases at instants the
 * daemon recorded on the monotonic clock. Each phase runs from the previous
 * boundary that was seen to its own; a phase one of whose ends was not seen
 * is left out rather than guessed, so the phases never overlap and never
 * add up to more than the total (docs/protocol.md, "Timing"). */
#include <string.h>

#include "common/clock.h"
#include "sandboxd/run/run_priv.h"

static const char *const tm_names[RUN_TM_COUNT] = {
    TM_ACCEPT_US,    TM_QUEUE_US, TM_SETUP_HOST_US, TM_FORK_US, TM_SETUP_JAIL_US, TM_START_US,
    TM_USER_CODE_US, TM_TESTS_US, TM_EXIT_US,	    TM_RUN_US,	TM_TEARDOWN_US,	  TM_RESPONSE_US};

/* Adds the phase ending at `at` (0: not seen) and moves the mark there. */
static void run_timing_pass(struct run_timing *t, enum run_tm phase, uint64_t at)
{
	if (!at) {
		t->mark_ok = false;
		return;
	}
	if (t->mark_ok) {
		/* An instant out of order (records and the exit read in one
		 * poll round) counts as no time, never as negative time. */
		t->ns[phase] += at > t->mark ? at - t->mark : 0;
		t->have[phase] = true;
	}
	if (!t->mark_ok || at > t->mark)
		t->mark = at;
	t->mark_ok = true;
}

void run_timing_begin(struct run_timing *t, const struct job *j)
{
	memset(t, 0, sizeof *t);
	t->on = j->req.timing;
	t->mark = j->received_ns;
	t->mark_ok = j->received_ns != 0;
	run_timing_pass(t, RUN_TM_ACCEPT, j->queued_ns);
	run_timing_pass(t, RUN_TM_QUEUE, j->popped_ns);
}

void run_timing_add(struct run_timing *t, const struct run_facts *f, const struct fb_run *fb)
{
	const struct jail_times *jt = &f->r.times;
	run_timing_pass(t, RUN_TM_SETUP_HOST, jt->go_ns);
	if (jt->forked_ns) /* warm only: a cold run has no such moment */
		run_timing_pass(t, RUN_TM_FORK, jt->forked_ns);
	run_timing_pass(t, RUN_TM_SETUP_JAIL, jt->exec_ns);
	if (fb) {
		run_timing_pass(t, RUN_TM_START, fb->compile_ns);
		if (fb->have_plan && fb->first_start_ns) {
			run_timing_pass(t, RUN_TM_USER_CODE, fb->first_start_ns);
			run_timing_pass(t, RUN_TM_TESTS, fb->done_ns);
		} else if (fb->have_plan) {
			run_timing_pass(t, RUN_TM_USER_CODE, fb->done_ns);
		}
		run_timing_pass(t, RUN_TM_EXIT, f->r.times.exit_ns);
	} else {
		run_timing_pass(t, RUN_TM_RUN, f->r.times.exit_ns);
	}
	run_timing_pass(t, RUN_TM_TEARDOWN, f->end_ns);
	t->runs++;
}

void run_timing_json(struct run_timing *t, const struct job *j, json_t *resp)
{
	if (!t->on)
		return;
	uint64_t now = clock_mono_ns();
	run_timing_pass(t, RUN_TM_RESPONSE, now);
	json_t *o = json_object();
	for (int i = 0; o && i < RUN_TM_COUNT; i++)
		if (t->have[i])
			json_object_set_new(o, tm_names[i],
					    json_integer((json_int_t)(t->ns[i] / 1000u)));
	if (o && j->received_ns && now >= j->received_ns)
		json_object_set_new(o, TM_TOTAL_US,
				    json_integer((json_int_t)((now - j->received_ns) / 1000u)));
	if (o)
		json_object_set_new(o, TM_RUNS, json_integer((json_int_t)t->runs));
	json_object_set_new(resp, F_TIMING, o ? o : json_null());
}
