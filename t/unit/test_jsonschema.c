/* test_jsonschema.c - table-driven tests of the JSON Schema subset validator. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonschema.h"

static const struct {
	const char *schema;
	const char *instance;
	int expect;        /* 0 valid, 1 invalid, -1 bad schema */
	const char *errsub; /* substring of the error, or NULL */
} cases[] = {
	{"{\"type\":\"integer\"}", "3", 0, NULL},
	{"{\"type\":\"integer\"}", "3.0", 0, NULL},
	{"{\"type\":\"integer\"}", "3.5", 1, "expected integer, got number"},
	{"{\"type\":\"integer\"}", "\"3\"", 1, "got string"},
	{"{\"type\":\"number\"}", "3", 0, NULL},
	{"{\"type\":[\"integer\",\"null\"]}", "null", 0, NULL},
	{"{\"type\":[\"integer\",\"null\"]}", "true", 1, NULL},
	{"{\"type\":\"object\",\"required\":[\"a\"]}", "{\"b\":1}", 1, "missing required property \"a\""},
	{"{\"type\":\"object\",\"required\":[\"a\"]}", "{\"a\":null}", 0, NULL},
	{"{\"properties\":{\"a\":{\"type\":\"string\"}}}", "{\"a\":1}", 1, "/a: expected string"},
	{"{\"properties\":{\"a\":{\"type\":\"string\"}},\"additionalProperties\":false}", "{\"a\":\"x\",\"b\":1}", 1, "unknown property \"b\""},
	{"{\"additionalProperties\":{\"type\":\"integer\"}}", "{\"x\":1,\"y\":\"z\"}", 1, "/y: expected integer"},
	{"{\"items\":{\"type\":\"integer\",\"minimum\":0}}", "[0,1,-1]", 1, "/2: -1 is less than the minimum 0"},
	{"{\"items\":{\"type\":\"integer\",\"maximum\":9}}", "[0,9]", 0, NULL},
	{"{\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}],\"additionalItems\":false}", "[\"a\",1,2]", 1, "at most 2"},
	{"{\"minItems\":2}", "[1]", 1, "at least 2"},
	{"{\"enum\":[\"in_mpi\",\"computing\"]}", "\"computing\"", 0, NULL},
	{"{\"enum\":[\"in_mpi\",\"computing\"]}", "\"sleeping\"", 1, "is not one of"},
	{"{\"enum\":[1,2]}", "2.0", 0, NULL},
	{"{\"const\":1}", "1", 0, NULL},
	{"{\"pattern\":\"^0x[0-9a-f]+$\"}", "\"0x12ab\"", 0, NULL},
	{"{\"pattern\":\"^0x[0-9a-f]+$\"}", "\"12ab\"", 1, "does not match"},
	{"{\"pattern\":\"(\"}", "\"x\"", -1, "bad pattern"},
	{"{\"minLength\":2,\"maxLength\":3}", "\"abcd\"", 1, "longer"},
	{"{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "1", 0, NULL},
	{"{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "[]", 1, "anyOf"},
	{"{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"number\"}]}", "1", 1, "oneOf"},
	{"{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}]}", "1", 0, NULL},
	{"{\"not\":{\"type\":\"null\"}}", "null", 1, "must not"},
	{"{\"allOf\":[{\"minimum\":1},{\"maximum\":2}]}", "3", 1, "maximum"},
	{"{\"definitions\":{\"f\":{\"type\":\"object\",\"required\":[\"addr\"]}},\"items\":{\"$ref\":\"#/definitions/f\"}}", "[{\"addr\":\"0x1\"},{}]", 1, "/1: missing required property \"addr\""},
	{"{\"$ref\":\"#/definitions/nope\"}", "1", -1, "cannot resolve"},
	{"{\"definitions\":{\"r\":{\"$ref\":\"#/definitions/r\"}},\"$ref\":\"#/definitions/r\"}", "1", -1, "deeper"},
	{"{\"exclusiveMinimum\":0}", "0", 1, "not greater"},
	{"true", "{}", 0, NULL},
	{"false", "{}", 1, "no value"},
	{"{\"properties\":{\"a\":{\"properties\":{\"b\":{\"items\":{\"type\":\"null\"}}}}}}", "{\"a\":{\"b\":[null,0]}}", 1, "/a/b/1: expected null"},
};

START_TEST(test_case)
{
	char err[256];
	struct json_object *s = json_tokener_parse(cases[_i].schema);
	struct json_object *v = json_tokener_parse(cases[_i].instance);
	ck_assert_msg(s != NULL, "schema %d parses", _i);
	int rv = mw_jsonschema_validate(s, v, err, sizeof err);
	ck_assert_msg(rv == cases[_i].expect, "case %d: got %d want %d (%s)", _i, rv, cases[_i].expect, err);
	if (cases[_i].errsub)
		ck_assert_msg(strstr(err, cases[_i].errsub) != NULL, "case %d: error '%s' lacks '%s'", _i,
			      err, cases[_i].errsub);
	if (rv == 0)
		ck_assert_str_eq(err, "");
	json_object_put(s);
	json_object_put(v);
}
END_TEST

START_TEST(test_small_errbuf)
{
	char err[8];
	struct json_object *s = json_tokener_parse("{\"type\":\"string\"}");
	struct json_object *v = json_tokener_parse("1");
	ck_assert_int_eq(mw_jsonschema_validate(s, v, err, sizeof err), 1);
	ck_assert_int_lt(strlen(err), sizeof err);
	ck_assert_int_eq(mw_jsonschema_validate(s, v, NULL, 0), 1);
	json_object_put(s);
	json_object_put(v);
}
END_TEST

START_TEST(test_read_file)
{
	char err[256];
	errno = 0;
	ck_assert_ptr_null(mw_json_read_file("/nonexistent/x.json", err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.json"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jsonschema");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_case, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_small_errbuf);
	tcase_add_test(tc, test_read_file);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
