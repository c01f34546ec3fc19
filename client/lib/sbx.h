/* libsbx: a small client library for sandboxd. The sbx CLI is a thin layer
 * over it, and C harnesses can link it directly. */
#ifndef SBX_CLIENT_H
#define SBX_CLIENT_H

#include <jansson.h>
#include <stddef.h>

struct sbx_conn;

/* $SBX_SOCKET, else /run/sandboxd.sock. */
const char *sbx_default_socket(void);
/* NULL on failure, with a message naming the socket in err. */
struct sbx_conn *sbx_connect(const char *path, char *err, size_t errlen);
void sbx_close(struct sbx_conn *c);
/* Sends one request (a JSON object with a string "id"). 0 or -1. */
int sbx_submit(struct sbx_conn *c, const json_t *req, char *err, size_t errlen);
/* Waits for the response with this id (others that arrive meanwhile are
 * kept for later calls). timeout_ms < 0 waits forever. New reference or NULL. */
json_t *sbx_wait(struct sbx_conn *c, const char *id, int timeout_ms, char *err, size_t errlen);
/* Waits for any response. */
json_t *sbx_next(struct sbx_conn *c, int timeout_ms, char *err, size_t errlen);
/* submit + wait. */
json_t *sbx_call(struct sbx_conn *c, const json_t *req, int timeout_ms, char *err, size_t errlen);
/* Reads a whole file (or "-" for stdin), up to max bytes. */
char *sbx_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);

#endif
