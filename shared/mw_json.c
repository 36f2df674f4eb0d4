/* mw_json.c - see mw_json.h. */
#include "mw_json.h"

#include <errno.h>
#include <math.h>
#include <string.h>

json_object *mw_json_member(json_object *o, const char *k)
{
	json_object *v;
	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, k, &v))
		return NULL;
	return v;
}

int mw_json_int_of(json_object *v, int64_t lo, int64_t hi, int64_t *out)
{
	int64_t x;
	if (!v || !json_object_is_type(v, json_type_int))
		return -1;
	errno = 0;
	x = json_object_get_int64(v);
	if (errno || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

int mw_json_int(json_object *o, const char *k, int64_t lo, int64_t hi, int64_t *out)
{
	return mw_json_int_of(mw_json_member(o, k), lo, hi, out);
}

int mw_json_num(json_object *o, const char *k, double lo, double hi, double *out)
{
	json_object *v = mw_json_member(o, k);
	double x;
	if (!v || !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return -1;
	x = json_object_get_double(v);
	if (!(isfinite(x) && x >= lo && x < hi))
		return -1;
	*out = x;
	return 0;
}

int mw_json_long(json_object *o, const char *k, long long *out)
{
	json_object *v = mw_json_member(o, k);
	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return -1;
	*out = json_object_get_int64(v);
	return 0;
}

const char *mw_json_str_of(json_object *v)
{
	const char *s;
	if (!v || !json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	return (size_t)json_object_get_string_len(v) == strlen(s) ? s : NULL;
}

const char *mw_json_text(json_object *o, const char *k)
{
	return mw_json_str_of(mw_json_member(o, k));
}

const char *mw_json_str(json_object *o, const char *k, size_t max)
{
	const char *s = mw_json_text(o, k);
	size_t n;
	if (!s || (n = strlen(s)) > max)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return NULL;
	return s;
}

json_object *mw_json_array(json_object *o, const char *k)
{
	json_object *v = mw_json_member(o, k);
	return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

int mw_json_true(json_object *o, const char *k)
{
	json_object *v = mw_json_member(o, k);
	return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}
