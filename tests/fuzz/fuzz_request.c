/* libFuzzer target: request parsing and validation, the first code that
 * touches a client's bytes. Invariants checked beyond "no crash": an
 * accepted request has an id and, for runs, code; every accepted file path
 * passes the path check again; every rejection renders as a JSON line. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_bounds b;
	struct proto_request r;
	struct proto_error e;
	char *id = NULL;
	proto_bounds_default(&b);
	b.max_line = 1 << 20;
	if (proto_parse_request((const char *)data, size, &b, &r, &id, &e) == 0) {
		assert(r.id && r.id[0]);
		assert(r.op == OP_PING || r.code);
		for (size_t i = 0; i < r.nfiles; i++) {
			char why[64];
			assert(proto_check_path(r.files[i].path, &b, why, sizeof why) == 0);
		}
		if (r.format == FMT_STDIO)
			assert(r.ncases > 0);
		proto_request_free(&r);
	} else {
		char *line = proto_error_line(id, e.code, e.message);
		assert(line != NULL);
		free(line);
	}
	free(id);
	return 0;
}
