/* The turns.jsonl log of `sbx eval`: an index of where each (setting, task,
 * turn) record sits (for resume and ConvCodeBench replay), the "turns"
 * rewrite for a longer rerun, and traces.jsonl in the common agent-trace
 * schema built from the log. */
#include "client/eval/eval_priv.h"
#include "common/errfmt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ri_item {
	char *setting, *task;
	off_t *off;	/* by turn; -1 when that turn has no record */
	size_t *len;	/* line length without the newline */
	int nturns;	/* slots allocated */
	int first_pass; /* first turn whose verdict is "pass", or -1 */
	int max_turns;	/* the largest "turns" its records carry */
};

struct rec_index {
	int fd;
	struct ri_item *v; /* in order of first appearance in the file */
	size_t n, cap;
	size_t *slots; /* open-addressing hash: item index + 1, 0 = empty */
	size_t nslots;
	size_t count;
	char *mode, *run_id;
};

static uint64_t key_hash(const char *setting, const char *task)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = setting; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ 0x1f) * 1099511628211ull;
	for (const char *p = task; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static size_t *slot_for(const struct rec_index *ri, const char *setting, const char *task)
{
	size_t mask = ri->nslots - 1;
	for (size_t i = key_hash(setting, task) & mask;; i = (i + 1) & mask) {
		size_t s = ri->slots[i];
		if (!s)
			return &ri->slots[i];
		const struct ri_item *it = &ri->v[s - 1];
		if (strcmp(it->setting, setting) == 0 && strcmp(it->task, task) == 0)
			return &ri->slots[i];
	}
}

static struct ri_item *find(const struct rec_index *ri, const char *setting, const char *task)
{
	if (!ri || !ri->nslots)
		return NULL;
	size_t s = *slot_for(ri, setting, task);
	return s ? &ri->v[s - 1] : NULL;
}

/* Keeps the table at most half full so probes stay short. */
static int grow_slots(struct rec_index *ri)
{
	if (ri->nslots && (ri->n + 1) * 2 <= ri->nslots)
		return 0;
	size_t ns = ri->nslots ? ri->nslots * 2 : 256;
	size_t *old = ri->slots, on = ri->nslots;
	ri->slots = calloc(ns, sizeof *ri->slots);
	if (!ri->slots) {
		ri->slots = old;
		return -1;
	}
	ri->nslots = ns;
	for (size_t i = 0; i < on; i++)
		if (old[i]) {
			const struct ri_item *it = &ri->v[old[i] - 1];
			*slot_for(ri, it->setting, it->task) = old[i];
		}
	free(old);
	return 0;
}

static struct ri_item *find_or_add(struct rec_index *ri, const char *setting, const char *task)
{
	struct ri_item *it = find(ri, setting, task);
	if (it)
		return it;
	if (grow_slots(ri) < 0)
		return NULL;
	if (ri->n == ri->cap) {
		size_t nc = ri->cap ? ri->cap * 2 : 64;
		struct ri_item *nv = realloc(ri->v, nc * sizeof *nv);
		if (!nv)
			return NULL;
		ri->v = nv;
		ri->cap = nc;
	}
	it = &ri->v[ri->n];
	*it = (struct ri_item){
	    .setting = strdup(setting), .task = strdup(task), .first_pass = -1, .max_turns = -1};
	if (!it->setting || !it->task) {
		free(it->setting);
		free(it->task);
		return NULL;
	}
	ri->n++;
	*slot_for(ri, setting, task) = ri->n;
	return it;
}

static int ensure_turn(struct ri_item *it, int turn)
{
	if (turn < it->nturns)
		return 0;
	int nt = turn + 8;
	off_t *no = realloc(it->off, (size_t)nt * sizeof *no);
	if (!no)
		return -1;
	it->off = no;
	size_t *nl = realloc(it->len, (size_t)nt * sizeof *nl);
	if (!nl)
		return -1;
	it->len = nl;
	for (int i = it->nturns; i < nt; i++)
		it->off[i] = -1;
	it->nturns = nt;
	return 0;
}

/* Adds one parsed record; 1 when it was a duplicate, -1 out of memory. */
static int index_record(struct rec_index *ri, const json_t *r, off_t off, size_t len)
{
	const char *setting = json_string_value(json_object_get(r, K_SETTING));
	const char *task = json_string_value(json_object_get(r, K_TASK_ID));
	json_t *jt = json_object_get(r, K_TURN);
	if (!setting || !task || !json_is_integer(jt) || json_integer_value(jt) < 0 ||
	    json_integer_value(jt) > 100000)
		return 2;
	int turn = (int)json_integer_value(jt);
	struct ri_item *it = find_or_add(ri, setting, task);
	if (!it || ensure_turn(it, turn) < 0)
		return -1;
	if (it->off[turn] >= 0)
		return 1;
	it->off[turn] = off;
	it->len[turn] = len;
	ri->count++;
	const char *verdict = json_string_value(json_object_get(r, K_VERDICT));
	if (verdict && strcmp(verdict, "pass") == 0 &&
	    (it->first_pass < 0 || turn < it->first_pass))
		it->first_pass = turn;
	json_t *jn = json_object_get(r, K_TURNS);
	int n = json_is_integer(jn) && json_integer_value(jn) <= 100000
		    ? (int)json_integer_value(jn)
		    : 0;
	if (n > it->max_turns)
		it->max_turns = n;
	const char *mode = json_string_value(json_object_get(r, K_MODE));
	const char *run_id = json_string_value(json_object_get(r, K_RUN_ID));
	if (!ri->mode && mode)
		ri->mode = strdup(mode);
	if (!ri->run_id && run_id)
		ri->run_id = strdup(run_id);
	return 0;
}

static int scan(struct rec_index *ri, FILE *f, const char *path, bool repair, FILE *warn, char *err,
		size_t errlen)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	off_t off = 0;
	ssize_t n;
	int rc = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[n - 1] != '\n') {
			/* A run killed in the middle of a write: the record never
			 * finished, so its turn is redone. */
			if (repair && ftruncate(fileno(f), off) < 0) {
				errfmt(err, errlen, "%s: cannot cut the torn last line: %s", path,
				       errfmt_desc(errno));
				rc = -1;
			} else if (warn) {
				fprintf(warn, "%s:%zu: torn last line %s\n", path, lineno,
					repair ? "removed" : "ignored");
			}
			break;
		}
		json_error_t je;
		json_t *r = json_loadb(line, (size_t)n - 1, 0, &je);
		int ir = r ? index_record(ri, r, off, (size_t)n - 1) : 2;
		json_decref(r);
		if (ir < 0) {
			errfmt(err, errlen, "out of memory indexing %s", path);
			rc = -1;
			break;
		}
		if (ir && warn)
			fprintf(warn, "%s:%zu: %s, skipped\n", path, lineno,
				ir == 1 ? "duplicate record" : "not a turn record");
		off += n;
	}
	free(line);
	return rc;
}

struct rec_index *ri_load(const char *path, bool repair, FILE *warn, char *err, size_t errlen)
{
	struct rec_index *ri = calloc(1, sizeof *ri);
	if (!ri) {
		errfmt(err, errlen, "out of memory");
		return NULL;
	}
	ri->fd = -1;
	int fd = open(path, (repair ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return ri;
		errfmt(err, errlen, "cannot open %s: %s", path, errfmt_desc(errno));
		free(ri);
		return NULL;
	}
	int fd2 = dup(fd);
	FILE *f = fd2 >= 0 ? fdopen(fd2, "r") : NULL;
	if (!f) {
		errfmt(err, errlen, "cannot read %s: %s", path, errfmt_desc(errno));
		if (fd2 >= 0)
			close(fd2);
		close(fd);
		free(ri);
		return NULL;
	}
	ri->fd = fd;
	int rc = scan(ri, f, path, repair, warn, err, errlen);
	fclose(f);
	if (rc < 0) {
		ri_free(ri);
		return NULL;
	}
	return ri;
}

void ri_free(struct rec_index *ri)
{
	if (!ri)
		return;
	for (size_t i = 0; i < ri->n; i++) {
		free(ri->v[i].setting);
		free(ri->v[i].task);
		free(ri->v[i].off);
		free(ri->v[i].len);
	}
	if (ri->fd >= 0)
		close(ri->fd);
	free(ri->v);
	free(ri->slots);
	free(ri->mode);
	free(ri->run_id);
	free(ri);
}

size_t ri_count(const struct rec_index *ri)
{
	return ri ? ri->count : 0;
}

int ri_max_turns(const struct rec_index *ri, const char *setting)
{
	int n = -1;
	for (size_t i = 0; ri && i < ri->n; i++)
		if (strcmp(ri->v[i].setting, setting) == 0 && ri->v[i].max_turns > n)
			n = ri->v[i].max_turns;
	return n;
}

const char *ri_mode(const struct rec_index *ri)
{
	return ri ? ri->mode : NULL;
}

const char *ri_run_id(const struct rec_index *ri)
{
	return ri ? ri->run_id : NULL;
}

bool ri_has_setting(const struct rec_index *ri, const char *setting)
{
	for (size_t i = 0; ri && i < ri->n; i++)
		if (strcmp(ri->v[i].setting, setting) == 0)
			return true;
	return false;
}

int ri_done_turns(const struct rec_index *ri, const char *setting, const char *task)
{
	const struct ri_item *it = find(ri, setting, task);
	int t = 0;
	while (it && t < it->nturns && it->off[t] >= 0)
		t++;
	return t;
}

int ri_first_pass(const struct rec_index *ri, const char *setting, const char *task)
{
	const struct ri_item *it = find(ri, setting, task);
	return it ? it->first_pass : -1;
}

static json_t *read_at(int fd, off_t off, size_t len)
{
	char *buf = malloc(len + 1);
	if (!buf)
		return NULL;
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(fd, buf + got, len - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	json_t *o = got == len ? json_loadb(buf, len, 0, NULL) : NULL;
	free(buf);
	return o;
}

json_t *ri_get(const struct rec_index *ri, const char *setting, const char *task, int turn)
{
	const struct ri_item *it = find(ri, setting, task);
	if (!it || turn < 0 || turn >= it->nturns || it->off[turn] < 0)
		return NULL;
	return read_at(ri->fd, it->off[turn], it->len[turn]);
}

/* --- rewriting "turns" ---------------------------------------------------- */

static bool in_list(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (strcmp(s, v[i]) == 0)
			return true;
	return false;
}

/* Writes a whole buffer, retrying short writes. */
static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_json_line(int fd, const json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);
	if (!s)
		return -1;
	size_t n = strlen(s);
	s[n] = '\n'; /* json_dumps's terminator becomes the newline */
	int rc = write_all(fd, s, n + 1);
	free(s);
	return rc;
}

/* Opens path.tmp for a file that replaces path atomically when done. */
static int open_tmp(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen)
{
	snprintf(tmp, tmplen, "%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		errfmt(err, errlen, "cannot create %s: %s", tmp, errfmt_desc(errno));
	return fd;
}

/* A failed write: the temporary file goes, the old output stays. */
static int drop_tmp(int fd, const char *tmp, char *err, size_t errlen)
{
	errfmt(err, errlen, "cannot write %s: %s", tmp, errfmt_desc(errno));
	close(fd);
	unlink(tmp);
	return -1;
}

static int commit_tmp(int fd, const char *tmp, const char *path, char *err, size_t errlen)
{
	if (fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
		errfmt(err, errlen, "cannot write %s: %s", path, errfmt_desc(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int ri_rewrite_turns(const char *path, const char *const *settings, size_t n, int turns, char *err,
		     size_t errlen)
{
	FILE *in = fopen(path, "re");
	if (!in) {
		errfmt(err, errlen, "cannot read %s: %s", path, errfmt_desc(errno));
		return -1;
	}
	char tmp[4096];
	int fd = open_tmp(path, tmp, sizeof tmp, err, errlen);
	if (fd < 0) {
		fclose(in);
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;
	while (rc == 0 && (len = getline(&line, &cap, in)) > 0) {
		json_t *r = json_loadb(line, (size_t)len, 0, NULL);
		if (r && in_list(json_string_value(json_object_get(r, K_SETTING)), settings, n))
			json_object_set_new(r, K_TURNS, json_integer(turns));
		/* Lines that are not records are kept as they were. */
		rc = r ? write_json_line(fd, r) : write_all(fd, line, (size_t)len);
		json_decref(r);
	}
	free(line);
	fclose(in);
	if (rc < 0)
		return drop_tmp(fd, tmp, err, errlen);
	return commit_tmp(fd, tmp, path, err, errlen);
}

/* --- traces.jsonl ----------------------------------------------------------- */

static const char *str_or(const json_t *o, const char *k, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : dflt;
}

/* The model provider is what --model names before '/', as in
 * "openai/gpt-4o"; a bare name does not say. */
static json_t *provider_of(const char *model)
{
	const char *slash = strchr(model, '/');
	if (!slash || slash == model)
		return json_string("unknown");
	return json_stringn(model, (size_t)(slash - model));
}

/* The last turn's feedback as one text, the way `sbx run --explain` shows it. */
static json_t *verifier_output(const json_t *last)
{
	const json_t *fb = json_object_get(last, K_FEEDBACK);
	const char *comp = str_or(fb, K_FB_COMP, ""), *exec = str_or(fb, K_FB_EXEC, "");
	const char *verbal = str_or(fb, K_FB_VERBAL, "");
	size_t n = strlen(comp) + strlen(exec) + strlen(verbal) + 256;
	char *buf = malloc(n);
	if (!buf)
		return NULL;
	int w = snprintf(buf, n, "Verdict: %s\n\n== Compilation feedback ==\n%s\n",
			 str_or(last, K_VERDICT, "?"), comp);
	if (*exec)
		w += snprintf(buf + w, n - (size_t)w, "\n== Execution feedback ==\n%s\n", exec);
	if (*verbal)
		snprintf(buf + w, n - (size_t)w, "\n== Verbal feedback ==\n%s\n", verbal);
	json_t *s = json_string(buf);
	free(buf);
	return s;
}

static int add_message(json_t *conv, const char *role, const char *content)
{
	json_t *m = json_pack("{s:s, s:s}", "role", role, "content", content ? content : "");
	return m ? json_array_append_new(conv, m) : -1;
}

/* One trace line for one task × setting, from its records in turn order. */
static json_t *trace_of(const struct rec_index *ri, const struct ri_item *it)
{
	json_t *conv = json_array(), *first = NULL, *last = NULL;
	json_int_t first_pass = -1;
	for (int t = 0; conv && t < it->nturns && it->off[t] >= 0; t++) {
		json_t *r = read_at(ri->fd, it->off[t], it->len[t]);
		if (!r)
			break;
		if (!json_is_true(json_object_get(r, K_CARRIED)) &&
		    json_is_string(json_object_get(r, K_USER_MSG))) {
			add_message(conv, "user", str_or(r, K_USER_MSG, ""));
			add_message(conv, "assistant", str_or(r, K_ASSISTANT_MSG, ""));
		}
		if (first_pass < 0 && strcmp(str_or(r, K_VERDICT, ""), "pass") == 0)
			first_pass = t;
		if (!first)
			first = json_incref(r);
		json_decref(last);
		last = r;
	}
	json_t *tr = NULL;
	if (conv && first && last) {
		const char *model = str_or(first, K_MODEL, "unknown");
		char trial[1024];
		snprintf(trial, sizeof trial, "%s__%s", it->task, it->setting);
		tr = json_pack(
		    "{s:O, s:s, s:s, s:o, s:s, s:s, s:s, s:s, s:s, s:{s:b, s:o, s:s}, s:o}",
		    "conversations", conv, "agent", "sbx-eval", "model", model, "model_provider",
		    provider_of(model), "date", str_or(first, K_TIME, ""), "task", it->task,
		    "episode", it->setting, "run_id", str_or(first, K_RUN_ID, ""), "trial_name",
		    trial, "result", "solved", first_pass >= 0, "first_pass_turn",
		    first_pass >= 0 ? json_integer(first_pass) : json_null(), "verdict",
		    str_or(last, K_VERDICT, ""), "verifier_output", verifier_output(last));
	}
	json_decref(conv);
	json_decref(first);
	json_decref(last);
	return tr;
}

int trace_write(const struct rec_index *ri, const char *path, char *err, size_t errlen)
{
	char tmp[4096];
	int fd = open_tmp(path, tmp, sizeof tmp, err, errlen);
	if (fd < 0)
		return -1;
	for (size_t i = 0; i < ri->n; i++) {
		json_t *tr = trace_of(ri, &ri->v[i]);
		if (!tr)
			continue; /* an item with no turn-0 record has nothing to show */
		int rc = write_json_line(fd, tr);
		json_decref(tr);
		if (rc < 0)
			return drop_tmp(fd, tmp, err, errlen);
	}
	return commit_tmp(fd, tmp, path, err, errlen);
}
