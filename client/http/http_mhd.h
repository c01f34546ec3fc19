/* The libmicrohttpd callbacks of http.c, for main.c. */
#ifndef SBX_HTTP_MHD_H
#define SBX_HTTP_MHD_H

#include <microhttpd.h>

enum MHD_Result http_handle(void *cls, struct MHD_Connection *c, const char *url,
			    const char *method, const char *version, const char *upload,
			    size_t *upload_size, void **con_cls);
void http_completed(void *cls, struct MHD_Connection *c, void **con_cls,
		    enum MHD_RequestTerminationCode toe);

#endif
