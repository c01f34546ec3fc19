/* The daemon as /proc shows it (see tproc.h). */
#include "tests/helpers/tproc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Whether this binary was built with AddressSanitizer. */
#if defined(__SANITIZE_ADDRESS__)
#define BUILT_WITH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BUILT_WITH_ASAN 1
#endif
#endif
#ifndef BUILT_WITH_ASAN
#define BUILT_WITH_ASAN 0
#endif

int tproc_fd_count(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int tproc_fd_count_settled(pid_t pid, int still_ms, int max_ms)
{
	int n = tproc_fd_count(pid);
	for (int still = 0, waited = 0; still < still_ms && waited < max_ms; waited += 50) {
		struct timespec ts = {0, 50 * 1000000L};
		nanosleep(&ts, NULL);
		int now = tproc_fd_count(pid);
		still = now == n ? still + 50 : 0;
		n = now;
	}
	return n;
}

long tproc_status(pid_t pid, const char *key)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	long v = -1;
	size_t kl = strlen(key);
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

long tproc_rss_kb(pid_t pid)
{
	return tproc_status(pid, "VmRSS");
}

bool tproc_sanitized(pid_t pid)
{
	if (BUILT_WITH_ASAN)
		return true;
	char path[64], line[1024];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	bool yes = false;
	while (f && !yes && fgets(line, sizeof line, f))
		yes = strstr(line, "libasan") != NULL;
	if (f)
		fclose(f);
	return yes;
}

char *tproc_fd_listing(pid_t pid)
{
	char path[64], *out = calloc(1, 1600);
	size_t used = 0;
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d || !out) {
		if (d)
			closedir(d);
		return out ? out : strdup("");
	}
	struct dirent *de;
	while ((de = readdir(d)) && used < 1200) {
		if (de->d_name[0] == '.')
			continue;
		char p[400], t[256];
		snprintf(p, sizeof p, "%s/%s", path, de->d_name);
		ssize_t n = readlink(p, t, sizeof t - 1);
		t[n > 0 ? n : 0] = '\0';
		used += (size_t)snprintf(out + used, 1600 - used, "%s->%s ", de->d_name, t);
	}
	closedir(d);
	return out;
}

int tproc_ns_fds(pid_t pid, const char *type, unsigned long *inos, int max)
{
	char path[64], want[32];
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	snprintf(want, sizeof want, "%s:[", type);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char p[400], t[128];
		snprintf(p, sizeof p, "%s/%s", path, de->d_name);
		ssize_t l = readlink(p, t, sizeof t - 1);
		if (l <= 0)
			continue;
		t[l] = '\0';
		if (strncmp(t, want, strlen(want)) != 0)
			continue;
		if (inos && n < max)
			inos[n] = strtoul(t + strlen(want), NULL, 10);
		n++;
	}
	closedir(d);
	return n;
}

int tproc_fd_numbers(pid_t pid, char *out, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return -1;
	out[0] = '\0';
	int seen[64] = {0};
	struct dirent *e;
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.') {
			int fd = atoi(e->d_name);
			seen[fd >= 0 && fd < 63 ? fd : 63] = 1;
		}
	closedir(dir);
	for (int fd = 0; fd < 64; fd++)
		if (seen[fd] && strlen(out) + 8 < len)
			snprintf(out + strlen(out), len - strlen(out), "%d ", fd);
	return 0;
}

uid_t tproc_uid(pid_t pid)
{
	long v = tproc_status(pid, "Uid");
	return v < 0 ? (uid_t)-1 : (uid_t)v;
}
