/* What the two halves of request parsing (protocol.c, protocol_tests.c)
 * share; not part of the protocol's interface. */
#ifndef SBX_PROTOCOL_PRIV_H
#define SBX_PROTOCOL_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/protocol.h"

/* Fills err and returns -1, so a check can "return proto_fail(...)". */
int proto_fail(struct proto_error *err, enum proto_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A NUL-terminated copy of a JSON string (which may hold NULs); NULL when
 * out of memory. */
char *proto_dup_string(const json_t *s, size_t *len);
/* Whether key is one of the fields a test request may carry. */
bool proto_is_test_field(const char *key);
/* Parses and validates the test fields of root into r. */
int proto_parse_tests(json_t *root, const struct proto_bounds *b, struct proto_request *r,
		      struct proto_error *err);

#endif
