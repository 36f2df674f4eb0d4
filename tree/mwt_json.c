/* mwt_json.c - see mwt_json.h. */
#include "mwt_json.h"

#include <errno.h>
#include <math.h>
#include <string.h>

int mwt_json_int(json_object *o, const char *k, int64_t lo, int64_t hi, int64_t *out)
{
	json_object *v;
	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	errno = 0;
	*out = json_object_get_int64(v);
	return errno == 0 && *out >= lo && *out <= hi ? 0 : -1;
}

int mwt_json_num(json_object *o, const char *k, double lo, double hi, double *out)
{
	json_object *v;
	if (!json_object_object_get_ex(o, k, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return -1;
	*out = json_object_get_double(v);
	return isfinite(*out) && *out >= lo && *out < hi ? 0 : -1;
}

const char *mwt_json_str(json_object *o, const char *k, size_t max)
{
	json_object *v;
	const char *s;
	size_t i, n;
	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	if (n > max || strlen(s) != n)
		return NULL;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return NULL;
	return s;
}
