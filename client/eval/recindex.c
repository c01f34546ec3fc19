/* The turns.jsonl log of `sbx eval`: an index of where each (setting, task,
 * sample, turn) record sits (for resume, ConvCodeBench replay and traces.jsonl), and
 * the rewrites a rerun makes: "turns" for a longer run, failed turns
 * dropped to be asked again. */
#include "client/eval/eval_priv.h"
#include "client/eval/passk.h"
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
	int sample;	  /* --samples: the episode ("sample", 0 when absent) */
	off_t *off;	  /* by turn; -1 when that turn has no record */
	size_t *len;	  /* line length without the newline */
	int nturns;	  /* slots allocated */
	int first_pass;	  /* first turn whose verdict is "pass", or -1 */
	int first_failed; /* first turn whose generator or verbal command failed, or -1 */
	int max_turns;	  /* the largest "turns" its records carry */
};

struct rec_index {
	int fd;
	struct ri_item *v; /* in order of first appearance in the file */
	size_t n, cap;
	size_t *slots; /* open-addressing hash: item index + 1, 0 = empty */
	size_t nslots;
	size_t count;
	char *mode, *run_id;
	int max_sample;
};

static uint64_t key_hash(const char *setting, const char *task, int sample)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)sample;
	for (const char *p = setting; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ 0x1f) * 1099511628211ull;
	for (const char *p = task; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static size_t *slot_for(const struct rec_index *ri, const char *setting, const char *task,
			int sample)
{
	size_t mask = ri->nslots - 1;
	for (size_t i = key_hash(setting, task, sample) & mask;; i = (i + 1) & mask) {
		size_t s = ri->slots[i];
		if (!s)
			return &ri->slots[i];
		const struct ri_item *it = &ri->v[s - 1];
		if (it->sample == sample && strcmp(it->setting, setting) == 0 &&
		    strcmp(it->task, task) == 0)
			return &ri->slots[i];
	}
}

static struct ri_item *find(const struct rec_index *ri, const char *setting, const char *task,
			    int sample)
{
	if (!ri || !ri->nslots)
		return NULL;
	size_t s = *slot_for(ri, setting, task, sample);
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
			*slot_for(ri, it->setting, it->task, it->sample) = old[i];
		}
	free(old);
	return 0;
}

static struct ri_item *find_or_add(struct rec_index *ri, const char *setting, const char *task,
				   int sample)
{
	struct ri_item *it = find(ri, setting, task, sample);
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
	*it = (struct ri_item){.setting = strdup(setting),
			       .task = strdup(task),
			       .sample = sample,
			       .first_pass = -1,
			       .first_failed = -1,
			       .max_turns = -1};
	if (!it->setting || !it->task) {
		free(it->setting);
		free(it->task);
		return NULL;
	}
	ri->n++;
	*slot_for(ri, setting, task, sample) = ri->n;
	if (sample > ri->max_sample)
		ri->max_sample = sample;
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
	int sample = ri_record_sample(r);
	if (sample < 0)
		return 2;
	struct ri_item *it = find_or_add(ri, setting, task, sample);
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
	if ((json_is_string(json_object_get(r, K_GEN_ERROR)) ||
	     json_is_string(json_object_get(r, K_VERBAL_ERROR))) &&
	    (it->first_failed < 0 || turn < it->first_failed))
		it->first_failed = turn;
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

int ri_done_turns(const struct rec_index *ri, const char *setting, const char *task, int sample)
{
	const struct ri_item *it = find(ri, setting, task, sample);
	int t = 0;
	while (it && t < it->nturns && it->off[t] >= 0)
		t++;
	return t;
}

int ri_first_pass(const struct rec_index *ri, const char *setting, const char *task, int sample)
{
	const struct ri_item *it = find(ri, setting, task, sample);
	return it ? it->first_pass : -1;
}

int ri_first_failed(const struct rec_index *ri, const char *setting, const char *task, int sample)
{
	const struct ri_item *it = find(ri, setting, task, sample);
	return it ? it->first_failed : -1;
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

json_t *ri_get(const struct rec_index *ri, const char *setting, const char *task, int sample,
	       int turn)
{
	const struct ri_item *it = find(ri, setting, task, sample);
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

/* Rewrites path record by record: edit may change a record and says
 * whether it stays (lines that are not records always do, as they were). */
static int rewrite(const char *path, bool (*edit)(json_t *r, const void *arg), const void *arg,
		   char *err, size_t errlen)
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
		if (!r)
			rc = write_all(fd, line, (size_t)len);
		else if (edit(r, arg))
			rc = write_json_line(fd, r);
		json_decref(r);
	}
	free(line);
	fclose(in);
	if (rc < 0)
		return drop_tmp(fd, tmp, err, errlen);
	return commit_tmp(fd, tmp, path, err, errlen);
}

struct turns_edit {
	const char *const *settings;
	size_t n;
	int turns;
};

static bool set_turns(json_t *r, const void *arg)
{
	const struct turns_edit *e = arg;
	if (in_list(json_string_value(json_object_get(r, K_SETTING)), e->settings, e->n))
		json_object_set_new(r, K_TURNS, json_integer(e->turns));
	return true;
}

int ri_rewrite_turns(const char *path, const char *const *settings, size_t n, int turns, char *err,
		     size_t errlen)
{
	struct turns_edit e = {settings, n, turns};
	return rewrite(path, set_turns, &e, err, errlen);
}

struct failed_edit {
	const struct rec_index *ri;
	const char *const *settings;
	size_t n;
	size_t dropped;
};

/* A turn that follows a failed one grew from it: both go. */
static bool keep_unfailed(json_t *r, const void *arg)
{
	struct failed_edit *e = (struct failed_edit *)arg;
	const char *setting = json_string_value(json_object_get(r, K_SETTING));
	const char *task = json_string_value(json_object_get(r, K_TASK_ID));
	json_t *turn = json_object_get(r, K_TURN);
	if (!setting || !task || !json_is_integer(turn) || !in_list(setting, e->settings, e->n))
		return true;
	int sample = ri_record_sample(r);
	int from = sample < 0 ? -1 : ri_first_failed(e->ri, setting, task, sample);
	bool drop = from >= 0 && json_integer_value(turn) >= from;
	e->dropped += drop;
	return !drop;
}

int ri_drop_failed(const struct rec_index *ri, const char *path, const char *const *settings,
		   size_t n, size_t *dropped, char *err, size_t errlen)
{
	struct failed_edit e = {ri, settings, n, 0};
	int rc = rewrite(path, keep_unfailed, &e, err, errlen);
	*dropped = e.dropped;
	return rc;
}

size_t ri_items(const struct rec_index *ri)
{
	return ri ? ri->n : 0;
}

void ri_item_key(const struct rec_index *ri, size_t i, const char **setting, const char **task,
		 int *sample)
{
	*setting = ri->v[i].setting;
	*task = ri->v[i].task;
	*sample = ri->v[i].sample;
}

int ri_max_sample(const struct rec_index *ri)
{
	return ri ? ri->max_sample : 0;
}

int ri_record_sample(const json_t *r)
{
	const json_t *s = json_object_get(r, K_SAMPLE);
	if (!s)
		return 0;
	if (!json_is_integer(s) || json_integer_value(s) < 0 ||
	    json_integer_value(s) >= PASSK_MAX_SAMPLES)
		return -1;
	return (int)json_integer_value(s);
}

/* --- late verbal feedback --------------------------------------------------- */

/* "setting\x1ftask\x1fsample\x1fturn": ids hold no control characters that
 * matter here, and a clash could only replace a record by its own patch. */
static int patch_key(const json_t *r, char *buf, size_t len)
{
	const char *setting = json_string_value(json_object_get(r, K_SETTING));
	const char *task = json_string_value(json_object_get(r, K_TASK_ID));
	const json_t *turn = json_object_get(r, K_TURN);
	int sample = ri_record_sample(r);
	if (!setting || !task || !json_is_integer(turn) || sample < 0)
		return -1;
	int n = snprintf(buf, len, "%s\x1f%s\x1f%d\x1f%lld", setting, task, sample,
			 (long long)json_integer_value(turn));
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static bool apply_patch(json_t *r, const void *arg)
{
	char key[2048];
	const json_t *p = patch_key(r, key, sizeof key) == 0 ? json_object_get(arg, key) : NULL;
	if (p)
		json_object_update(r, (json_t *)p);
	return true;
}

int ri_patch_records(const char *path, const json_t *patches, char *err, size_t errlen)
{
	json_t *by_key = json_object();
	size_t i;
	json_t *p;
	char key[2048];
	if (!by_key)
		return errfmt(err, errlen, "out of memory");
	json_array_foreach(patches, i, p)
	{
		if (patch_key(p, key, sizeof key) == 0)
			json_object_set(by_key, key, p);
	}
	int rc = rewrite(path, apply_patch, by_key, err, errlen);
	json_decref(by_key);
	return rc;
}
