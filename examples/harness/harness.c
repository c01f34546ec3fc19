/* A C harness on libsbx alone: runs one program in sandboxd and prints its
 * verdict. Build against an installed libsbx: cc harness.c -lsbx -ljansson, or from
 * the tree: cc -Iclient/lib examples/harness/harness.c build/libsbx.a -ljansson. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "sbx.h"

int main(int argc, char **argv)
{
	const char *sock = argc > 1 ? argv[1] : "/run/sandboxd.sock";
	char err[512];
	struct sbx_conn *c = sbx_connect(sock, err, sizeof err);
	if (!c) {
		fprintf(stderr, "harness: %s\n", err);
		return 3;
	}
	json_t *req = json_pack("{s:s,s:s}", "id", "h1", "code", "print(6 * 7)");
	json_t *resp = req ? sbx_call(c, req, 30000, err, sizeof err) : NULL;
	json_decref(req);
	if (!resp) {
		fprintf(stderr, "harness: %s\n", err);
		sbx_close(c);
		return 1;
	}
	printf("%s %s", json_string_value(json_object_get(resp, "verdict")),
	       json_string_value(json_object_get(resp, "stdout")));
	json_decref(resp);
	sbx_close(c);
	return 0;
}
