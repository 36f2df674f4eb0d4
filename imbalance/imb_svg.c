/* imb_svg.c - a static SVG of seed 004's 3D bar chart (process x level-1
 * group x time) for reports: an isometric projection, one bar per process
 * and group, each with a <title> holding its value.  Above IMB_SVG_MAXBARS
 * processes, neighbouring processes are merged into bins (their mean). */
#include <stdlib.h>

#include "imb.h"

#define IMB_SVG_MAXBARS 64

static const char *const colour[3][3] = {
	/* top, front, side */
	{"#7fa6d0", "#4e79a7", "#39597c"}, /* computation */
	{"#f7b26b", "#f28e2b", "#b3691f"}, /* communication */
	{"#8cc47f", "#59a14f", "#41763a"}, /* I/O */
};

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
}

int imb_report_svg(FILE *f, const struct imb_analysis *a)
{
	static const int l1[3] = {IMB_G_COMP, IMB_G_COMM, IMB_G_IO};
	size_t n = a->nproc, bins = n > IMB_SVG_MAXBARS ? IMB_SVG_MAXBARS : n;
	double bw = bins > 32 ? 8 : 18, dx = bw * 1.6, gx = 60, gy = 34, hmax = 260, vmax = 0;
	double *v = calloc(3 * (bins ? bins : 1), sizeof(double));
	if (!v)
		return -1;
	for (int g = 0; g < 3; g++)
		for (size_t b = 0; b < bins; b++) {
			size_t lo = b * n / bins, hi = (b + 1) * n / bins;
			for (size_t p = lo; p < hi; p++)
				v[g * bins + b] += a->gt[l1[g]][p];
			v[g * bins + b] /= (double)(hi - lo);
			if (v[g * bins + b] > vmax)
				vmax = v[g * bins + b];
		}
	double W = 80 + (double)bins * dx + 3 * gx + 160, H = hmax + 3 * gy + 120;
	double ox = 60, oy = H - 60;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
		W, H, W, H);
	fprintf(f, "<title>mpiwatch load imbalance: process x group x time</title>\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">Time per process and group "
		   "(max %.3f s%s)</text>\n", ox, vmax / 1e6,
		bins < n ? "; processes merged into bins, bar = bin mean" : "");
	for (int g = 2; g >= 0; g--) { /* back row first */
		double rx = ox + g * gx, ry = oy - g * gy;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>\n",
			rx + (double)bins * dx + 10, ry, colour[g][1], imb_group_label(l1[g]));
		for (size_t b = 0; b < bins; b++) {
			double h = vmax > 0 ? v[g * bins + b] / vmax * hmax : 0, d = 10;
			double x = rx + (double)b * dx, y = ry;
			size_t lo = b * n / bins, hi = (b + 1) * n / bins;
			fprintf(f, "<g class=\"bar\"><title>");
			if (hi - lo == 1)
				fprintf(f, "process %s", a->label[lo]);
			else
				fprintf(f, "processes %s-%s (mean)", a->label[lo], a->label[hi - 1]);
			fprintf(f, ", ");
			xml_text(f, imb_group_label(l1[g]));
			fprintf(f, ": %.6f s</title>\n", v[g * bins + b] / 1e6);
			fprintf(f, "<polygon fill=\"%s\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
				colour[g][2], x + bw, y, x + bw + d, y - d, x + bw + d, y - d - h, x + bw, y - h);
			fprintf(f, "<polygon fill=\"%s\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
				colour[g][0], x, y - h, x + d, y - h - d, x + bw + d, y - h - d, x + bw, y - h);
			fprintf(f, "<rect fill=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></g>\n",
				colour[g][1], x, y - h, bw, h);
		}
	}
	for (size_t b = 0; b < bins; b += bins > 16 ? bins / 8 : 1)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			ox + (double)b * dx + bw / 2, oy + 18, a->label[b * n / bins]);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">process</text>\n</svg>\n", ox, oy + 40);
	free(v);
	return ferror(f) ? -1 : 0;
}
