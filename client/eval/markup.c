/* See markup.h. Numeric references for the quotes: &apos; is XML and HTML5
 * but not HTML 4, &#39; is all three. */
#include "client/eval/markup.h"

void markup_escape(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
				c = '?';
			fputc(c, f);
		}
	}
}
