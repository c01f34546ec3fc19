/* The wrapped allocator (failalloc.h). Only test binaries linked with the
 * --wrap flags use it; in the others nothing here is called. */
#include "tests/helpers/failalloc.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t a, size_t b);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

/* Blocks from here carry a 16-byte header whose second word is MAGIC, so
 * free() can tell them from blocks the C library allocated for itself
 * (vasprintf, realpath, ...): there the same word is malloc's chunk size. */
#define HDR 16
#define MAGIC 0x5bd1e995f00dcafeULL

static atomic_long fail_at = -1, count, live;
static atomic_int fail_once;

static int should_fail(void)
{
	long c = atomic_fetch_add(&count, 1), at = atomic_load(&fail_at);
	if (at < 0 || c < at)
		return 0;
	return atomic_load(&fail_once) ? c == at : 1;
}

static int ours(const void *p)
{
	uint64_t m;
	memcpy(&m, (const char *)p - 8, sizeof m);
	return m == MAGIC;
}

static void *tag(char *raw)
{
	uint64_t m = MAGIC;
	memcpy(raw + 8, &m, sizeof m);
	atomic_fetch_add(&live, 1);
	return raw + HDR;
}

void *__wrap_malloc(size_t n)
{
	if (should_fail() || n > SIZE_MAX - HDR)
		return NULL;
	char *raw = __real_malloc(n + HDR);
	return raw ? tag(raw) : NULL;
}

void *__wrap_calloc(size_t a, size_t b)
{
	if (b && a > (SIZE_MAX - HDR) / b)
		return NULL;
	void *p = __wrap_malloc(a * b);
	if (p)
		memset(p, 0, a * b);
	return p;
}

void *__wrap_realloc(void *p, size_t n)
{
	if (!p)
		return __wrap_malloc(n);
	if (!ours(p))
		return __real_realloc(p, n);
	if (should_fail() || n > SIZE_MAX - HDR)
		return NULL;
	char *raw = __real_realloc((char *)p - HDR, n + HDR);
	return raw ? raw + HDR : NULL;
}

void __wrap_free(void *p)
{
	if (!p)
		return;
	if (!ours(p)) {
		__real_free(p);
		return;
	}
	uint64_t zero = 0;
	memcpy((char *)p - 8, &zero, sizeof zero);
	atomic_fetch_sub(&live, 1);
	__real_free((char *)p - HDR);
}

char *__wrap_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = __wrap_malloc(len + 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

char *__wrap_strdup(const char *s)
{
	return __wrap_strndup(s, SIZE_MAX);
}

static void *json_alloc(size_t n)
{
	return __wrap_malloc(n);
}

static void json_release(void *p)
{
	__wrap_free(p);
}

void failalloc_install(void)
{
	json_set_alloc_funcs(json_alloc, json_release);
}

void failalloc_fail_at(long n, int once)
{
	atomic_store(&count, 0);
	atomic_store(&fail_once, once);
	atomic_store(&fail_at, n);
}

void failalloc_off(void)
{
	atomic_store(&fail_at, -1);
}

long failalloc_live(void)
{
	return atomic_load(&live);
}

long failalloc_count(void)
{
	return atomic_load(&count);
}

void failalloc_reset_count(void)
{
	atomic_store(&count, 0);
}
