/* The Pass@1-per-turn plot: a self-contained SVG the project writes itself
 * (no plotting library on the machine is assumed), as a file for `sbx score
 * --plot` and inline in the page of `sbx report`, from the same code. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "client/eval/atomic_file.h"
#include "client/eval/markup.h"
#include "client/eval/score.h"

static const char *const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
				      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define NCOLOURS (sizeof colours / sizeof colours[0])
/* Settings often score the same (CF and CF_SNF before any turn helps, or
 * every setting at turn 0): their curves lie on top of each other. Each
 * series also gets its own dash and marker, and 10, 6 and 5 make the first
 * 30 series differ in at least one of the three from every other. The
 * marker is drawn hollow where another series' filled one may sit under
 * it, so both show. */
static const char *const dashes[] = {"", "7 3", "2 3", "9 3 2 3", "14 4"};
#define NDASHES (sizeof dashes / sizeof dashes[0])
enum { MARK_CIRCLE, MARK_SQUARE, MARK_TRIANGLE, MARK_DIAMOND, MARK_CROSS, MARK_PLUS, NMARKS };

static void marker(FILE *f, int shape, double x, double y, const char *c)
{
	switch (shape) {
	case MARK_CIRCLE:
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>", x, y, c);
		break;
	case MARK_SQUARE:
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"none\" "
			"stroke=\"%s\" stroke-width=\"1.5\"/>",
			x - 4, y - 4, c);
		break;
	case MARK_TRIANGLE:
		fprintf(f, "<path d=\"M%.1f %.1fl4.5 8h-9z\" fill=\"%s\"/>", x, y - 5, c);
		break;
	case MARK_DIAMOND:
		fprintf(f,
			"<path d=\"M%.1f %.1fl5 5l-5 5l-5 -5z\" fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"1.5\"/>",
			x, y - 5, c);
		break;
	case MARK_CROSS:
		fprintf(f,
			"<path d=\"M%.1f %.1fl8 8m0 -8l-8 8\" stroke=\"%s\" stroke-width=\"1.5\"/>",
			x - 4, y - 4, c);
		break;
	default:
		fprintf(f,
			"<path d=\"M%.1f %.1fh10m-5 -5v10\" stroke=\"%s\" stroke-width=\"1.5\"/>",
			x - 5, y, c);
		break;
	}
	fputc('\n', f);
}

enum { PW = 560, PH = 340, L = 70, TOP = 50, LEGEND_ROW = 20 };

void score_svg_write(const struct score_table *t, FILE *f)
{
	int nt = score_max_turns(t), span = nt ? nt : 1;
	/* The y range hugs the data with a 5-point margin, rounded to tens:
	 * ConvCodeWorld's curves differ by a few points, invisible on 0..100. */
	double lo = 100, hi = 0;
	for (size_t i = 0; i < t->n; i++)
		for (int k = 0; k <= t->v[i].turns; k++) {
			lo = fmin(lo, 100 * t->v[i].pass_at_1[k]);
			hi = fmax(hi, 100 * t->v[i].pass_at_1[k]);
		}
	if (!t->n)
		lo = 0, hi = 100;
	lo = fmax(0, floor((lo - 5) / 10) * 10);
	hi = fmin(100, ceil((hi + 5) / 10) * 10);
	double step = hi - lo >= 50 ? 10 : hi - lo >= 20 ? 5 : 2;
	int xstep = nt <= 20 ? 1 : (nt + 19) / 20;
	/* The legend column fits the longest name (about 7 px a character). */
	size_t longest = 10;
	for (size_t i = 0; i < t->n; i++)
		longest = strlen(t->v[i].name) > longest ? strlen(t->v[i].name) : longest;
	int width = L + PW + 60 + 7 * (int)(longest < 200 ? longest : 200),
	    legend_h = TOP + LEGEND_ROW * (int)t->n + 20;
	int height = TOP + PH + 60 > legend_h ? TOP + PH + 60 : legend_h;
#define X(k) (L + (double)PW * (k) / span)
#define Y(p) (TOP + PH * (hi - (p)) / (hi - lo))

	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">Pass@1 per "
		"turn</text>\n",
		width, height, width, height, L + PW / 2);
	for (double p = lo; p <= hi + 1e-9; p += step)
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			L, Y(p), L + PW, Y(p), L - 6, Y(p) + 4, p);
	for (int k = 0; k <= nt; k += xstep)
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
			X(k), TOP, X(k), TOP + PH, X(k), TOP + PH + 16, k);
	fprintf(f, "<path d=\"M%d %dV%dH%d\" fill=\"none\" stroke=\"black\"/>\n", L, TOP, TOP + PH,
		L + PW);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">turn</text>\n", L + PW / 2,
		TOP + PH + 40);
	fprintf(f,
		"<text x=\"18\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 18 %d)\">"
		"Pass@1 (%%)</text>\n",
		TOP + PH / 2, TOP + PH / 2);
	for (size_t i = 0; i < t->n; i++) {
		const struct score_setting *s = &t->v[i];
		const char *c = colours[i % NCOLOURS], *d = dashes[i % NDASHES];
		int mark = (int)(i % NMARKS);
		char dash[40] = "";
		if (*d)
			snprintf(dash, sizeof dash, " stroke-dasharray=\"%s\"", d);
		fputs("<g class=\"series\"><title>", f);
		markup_escape(f, s->name, strlen(s->name));
		fprintf(f,
			"</title>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s "
			"points=\"",
			c, dash);
		for (int k = 0; k <= s->turns; k++)
			fprintf(f, "%s%.1f,%.1f", k ? " " : "", X(k), Y(100 * s->pass_at_1[k]));
		fputs("\"/>\n", f);
		for (int k = 0; k <= s->turns; k++)
			marker(f, mark, X(k), Y(100 * s->pass_at_1[k]), c);
		int ly = TOP + 10 + LEGEND_ROW * (int)i, lx = L + PW + 20;
		fprintf(f,
			"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
			"stroke-width=\"2\"%s/>",
			lx, ly, lx + 24, ly, c, dash);
		marker(f, mark, lx + 12, ly, c);
		fprintf(f, "<text x=\"%d\" y=\"%d\">", lx + 30, ly + 4);
		markup_escape(f, s->name, strlen(s->name));
		fputs("</text></g>\n", f);
	}
	fputs("</svg>\n", f);
#undef X
#undef Y
}

static int fill_svg(FILE *f, void *ctx, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	score_svg_write(ctx, f);
	return 0;
}

/* Atomic, so a reader never sees half a plot and a failed write leaves the
 * old one. */
int score_plot_svg(const struct score_table *t, const char *path, char *err, size_t errlen)
{
	return atomic_file_write(path, fill_svg, (void *)t, err, errlen);
}
