/* imb_html.c - the self-contained interactive page: the template
 * imbalance/web/imbalance.html with the vendored echarts and echarts-gl
 * inlined and the analysis JSON (imb_report_doc) as its data.  No network request. */
#include <json-c/json.h>
#include <string.h>

#include "imb.h"

extern const char imb_asset_page[], imb_asset_echarts[], imb_asset_echarts_gl[];

/* A script body must not hold "</script": break every "</" as "<\/", which
 * means the same inside JavaScript strings and regular expressions and is
 * not found elsewhere in minified code (checked by the browser test). */
static int put_script(FILE *f, const char *s)
{
	/* strchr for '<' (vectorised), not strstr: the page's 20 MB of data at
	 * 10,000 processes took a tenth of the run through strstr */
	const char *p = s;
	while ((p = strchr(p, '<'))) {
		if (p[1] != '/') {
			p++;
			continue;
		}
		fwrite(s, 1, (size_t)(p - s), f);
		fputs("<\\/", f);
		s = p = p + 2;
	}
	return fputs(s, f) < 0 ? -1 : 0;
}

int imb_report_html(FILE *f, struct json_object *o)
{
	return imb_report_html_text(f, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
}

int imb_report_html_text(FILE *f, const char *doc_json)
{
	static const struct {
		const char *mark;
		int which;
	} marks[] = {{"/*@ECHARTS@*/", 0}, {"/*@ECHARTS_GL@*/", 1}, {"/*@DATA@*/", 2}};
	const char *s = imb_asset_page;
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		const char *m = strstr(s, marks[i].mark);
		if (!m)
			break;
		fwrite(s, 1, (size_t)(m - s), f);
		if (marks[i].which == 0)
			put_script(f, imb_asset_echarts);
		else if (marks[i].which == 1)
			put_script(f, imb_asset_echarts_gl);
		else /* json-c writes "/" as "\/": no "</" can appear */
			put_script(f, doc_json);
		s = m + strlen(marks[i].mark);
	}
	fputs(s, f);
	return ferror(f) ? -1 : 0;
}
