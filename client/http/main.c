/* sandboxd-http: flags, the bearer tokens, the listening socket, dropping
 * root, and libmicrohttpd's start and stop. The daemon itself is reached
 * only through its Unix socket (upstream.c): the root daemon is never on a
 * network. */
#include <errno.h>
#include <grp.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client/http/http.h"
#include "client/http/http_mhd.h"
#include "client/lib/sbx.h"
#include "common/jsonmem.h"
#include "common/numparse.h"

static void main_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: sandboxd-http [--listen HOST:PORT] [--socket PATH] [--token-file FILE]\n"
	    "                     [--user NAME] [--max-body-mb N] [--max-connections N]\n"
	    "                     [--max-conn-per-ip N] [--timeout-s N] [--job-timeout-s N]\n"
	    "                     [--batch-max N] [--batch-window N]\n"
	    "Serves sandboxd over HTTP/1.1 (docs/http.md): SandboxFusion's POST /run_code,\n"
	    "POST /v1/run, POST /v1/batch, GET /v1/ping, /healthz and /metrics.\n"
	    "--listen (default 127.0.0.1:8080); --socket: the daemon's (default\n"
	    "$SBX_SOCKET, else /run/sandboxd.sock); --token-file: one \"TOKEN [TENANT]\" a line,\n"
	    "every request but /healthz then needs \"Authorization: Bearer TOKEN\", and the\n"
	    "daemon is told the token's tenant (give the front's uid --trust-uid); --user:\n"
	    "started as root, the front binds, reads the token file, then runs as NAME.\n"
	    "It refuses to serve as root.\n");
}

/* "TOKEN [TENANT]" lines; '#' starts a comment line. Read before the drop
 * of root, so the file may be root's alone. */
static int main_tokens(const char *path, struct http_config *cfg)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "sandboxd-http: %s: %s\n", path, strerror(errno));
		return -1;
	}
	cfg->tokens = calloc(HTTP_MAX_TOKENS, sizeof *cfg->tokens);
	char line[512];
	int rc = cfg->tokens ? 0 : -1;
	for (int n = 1; rc == 0 && fgets(line, sizeof line, f); n++) {
		char tok[256] = "", ten[256] = "", extra[8] = "";
		if (line[0] == '#' || sscanf(line, "%255s %255s %7s", tok, ten, extra) < 1)
			continue;
		size_t tl = strlen(tok), nl = strlen(ten);
		if (extra[0] || tl < 16 || tl > 128 || nl > 64 ||
		    strspn(ten,
			   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
			nl ||
		    cfg->ntokens == HTTP_MAX_TOKENS) {
			fprintf(
			    stderr,
			    "sandboxd-http: %s line %d: want \"TOKEN [TENANT]\", a token of 16-128 "
			    "characters, a tenant of 1-64 of [A-Za-z0-9_.-], at most %d lines\n",
			    path, n, HTTP_MAX_TOKENS);
			rc = -1;
			break;
		}
		memcpy(cfg->tokens[cfg->ntokens].token, tok, tl + 1);
		memcpy(cfg->tokens[cfg->ntokens].tenant, ten, nl + 1);
		cfg->ntokens++;
	}
	fclose(f);
	if (rc == 0 && cfg->ntokens == 0) {
		fprintf(stderr, "sandboxd-http: %s holds no token\n", path);
		rc = -1;
	}
	return rc;
}

static int main_listen(const char *addr)
{
	char host[256];
	const char *colon = strrchr(addr, ':');
	if (!colon || (size_t)(colon - addr) >= sizeof host) {
		fprintf(stderr, "sandboxd-http: --listen wants HOST:PORT, not %s\n", addr);
		return -1;
	}
	snprintf(host, sizeof host, "%.*s", (int)(colon - addr), addr);
	char *h = host;
	if (h[0] == '[' && h[strlen(h) - 1] == ']') { /* [::1]:8080 */
		h[strlen(h) - 1] = '\0';
		h++;
	}
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *ai;
	int e = getaddrinfo(h[0] ? h : NULL, colon + 1, &hints, &ai);
	if (e) {
		fprintf(stderr, "sandboxd-http: --listen %s: %s\n", addr, gai_strerror(e));
		return -1;
	}
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 128) < 0) {
		fprintf(stderr, "sandboxd-http: --listen %s: %s\n", addr, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

static int main_drop(const char *user)
{
	if (geteuid() != 0) {
		if (user) {
			fprintf(stderr, "sandboxd-http: --user needs root to switch users\n");
			return -1;
		}
		return 0;
	}
	if (!user) {
		fprintf(stderr, "sandboxd-http: refusing to serve as root: give --user NAME\n");
		return -1;
	}
	struct passwd *pw = getpwnam(user);
	if (!pw || pw->pw_uid == 0) {
		fprintf(stderr, "sandboxd-http: --user %s: no such non-root user\n", user);
		return -1;
	}
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 ||
	    setuid(pw->pw_uid) < 0 || setuid(0) == 0) {
		fprintf(stderr, "sandboxd-http: cannot become %s: %s\n", user, strerror(errno));
		return -1;
	}
	return 0;
}

static int main_num(const char *flag, const char *v, long lo, long hi, long *out)
{
	if (!v || num_parse_long(v, lo, hi, out) < 0) {
		fprintf(stderr, "sandboxd-http: %s wants an integer in [%ld, %ld]\n", flag, lo, hi);
		return -1;
	}
	return 0;
}

static int main_flags(int argc, char **argv, struct http_config *cfg, const char **tokens)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long n = 0;
		int rc = 0;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			main_usage(stdout);
			exit(0);
		}
		if (!v) {
			fprintf(stderr, "sandboxd-http: %s: missing value or unknown flag\n", a);
			return -1;
		}
		if (strcmp(a, "--listen") == 0)
			cfg->listen_addr = v;
		else if (strcmp(a, "--socket") == 0)
			cfg->socket = v;
		else if (strcmp(a, "--token-file") == 0)
			*tokens = v;
		else if (strcmp(a, "--user") == 0)
			cfg->user = v;
		else if (strcmp(a, "--max-body-mb") == 0 && !(rc = main_num(a, v, 1, 1024, &n)))
			cfg->max_body = (size_t)n << 20;
		else if (strcmp(a, "--max-connections") == 0 &&
			 !(rc = main_num(a, v, 1, 100000, &n)))
			cfg->max_conns = (unsigned)n;
		else if (strcmp(a, "--max-conn-per-ip") == 0 &&
			 !(rc = main_num(a, v, 0, 100000, &n)))
			cfg->max_per_ip = (unsigned)n;
		else if (strcmp(a, "--timeout-s") == 0 && !(rc = main_num(a, v, 1, 3600, &n)))
			cfg->conn_timeout = (unsigned)n;
		else if (strcmp(a, "--job-timeout-s") == 0 && !(rc = main_num(a, v, 1, 86400, &n)))
			cfg->job_timeout_ms = (int)n * 1000;
		else if (strcmp(a, "--batch-max") == 0 && !(rc = main_num(a, v, 1, 1000000, &n)))
			cfg->batch_max = (unsigned)n;
		else if (strcmp(a, "--batch-window") == 0 && !(rc = main_num(a, v, 1, 4096, &n)))
			cfg->batch_window = (unsigned)n;
		else if (!rc) {
			fprintf(stderr, "sandboxd-http: unknown flag %s\n", a);
			main_usage(stderr);
			return -1;
		}
		if (rc)
			return -1;
		i++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct http_config cfg = {.listen_addr = "127.0.0.1:8080",
				  .socket = sbx_default_socket(),
				  .max_body = 16u << 20,
				  .max_conns = 256,
				  .conn_timeout = 60,
				  /* The stock profile's longest wall_ms (1200 s), with
				   * time to wait in the queue: it used to be 700 s, and a
				   * job allowed 1200 s was cancelled at 700 (an outside
				   * attack noticed). */
				  .job_timeout_ms = 1300000,
				  .batch_max = 10000,
				  .batch_window = 32};
	const char *tokens = NULL;
	jsonmem_init(); /* before any thread: jansson's allocator is global */
	if (main_flags(argc, argv, &cfg, &tokens) < 0)
		return 2;
	if (tokens && main_tokens(tokens, &cfg) < 0)
		return 2;
	int fd = main_listen(cfg.listen_addr);
	if (fd < 0 || main_drop(cfg.user) < 0)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* every thread after this one too */
	up_init(&cfg);
	struct MHD_Daemon *d = MHD_start_daemon(
	    MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0,
	    NULL, NULL, http_handle, &cfg, MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_CONNECTION_LIMIT, cfg.max_conns, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	    cfg.max_per_ip, MHD_OPTION_CONNECTION_TIMEOUT, cfg.conn_timeout,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64u << 10), MHD_OPTION_NOTIFY_COMPLETED,
	    http_completed, NULL, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "sandboxd-http: cannot start the HTTP server\n");
		return 1;
	}
	/* The port as bound (--listen HOST:0 picks one; tests read it here). */
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char hbuf[NI_MAXHOST] = "?", pbuf[NI_MAXSERV] = "?";
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
		getnameinfo((struct sockaddr *)&ss, sl, hbuf, sizeof hbuf, pbuf, sizeof pbuf,
			    NI_NUMERICHOST | NI_NUMERICSERV);
	fprintf(stderr, "sandboxd-http: listening on %s port %s, daemon %s, %zu token(s), uid %d\n",
		hbuf, pbuf, cfg.socket, cfg.ntokens, (int)getuid());
	int sig = 0;
	sigwait(&set, &sig);
	fprintf(stderr, "sandboxd-http: signal %d, stopping\n", sig);
	MHD_stop_daemon(d);
	up_shutdown();
	free(cfg.tokens);
	return 0;
}
