/* jsonschema.h - a small JSON Schema (draft-07 subset) validator over json-c.
 *
 * Supported keywords: type (a name or an array of names; "integer" also
 * accepts a double with an integral value), enum, const, required,
 * properties, additionalProperties (bool or schema), patternProperties is NOT
 * supported, items (one schema for every element, or an array for a tuple),
 * additionalItems (bool), minItems, maxItems, minLength, maxLength, pattern
 * (POSIX extended regex, unanchored as in JSON Schema), minimum, maximum,
 * exclusiveMinimum, exclusiveMaximum (draft-07 numbers), allOf, anyOf, oneOf,
 * not, and "$ref" to a JSON pointer inside the root schema ("#",
 * "#/definitions/x", "#/$defs/x").  Unknown keywords ($schema, title,
 * description, format, default, ...) are ignored, as the standard says.
 *
 * Error messages name the place in the instance as a JSON pointer, e.g.
 * "/call/peer: expected integer, got string".
 */
#ifndef MW_JSONSCHEMA_H
#define MW_JSONSCHEMA_H

#include <stddef.h>

#include <json-c/json.h>

/* Validate instance against schema.  On failure, the first error found is
 * written to errbuf (if errbuf and len > 0; always NUL-terminated).
 * Return 0 if the instance is valid, 1 if it is not, or -1 if the schema
 * itself is unusable (bad $ref, bad regex, too deep) with errno set
 * (EINVAL, ELOOP) and a message in errbuf. */
int mw_jsonschema_validate(struct json_object *schema, struct json_object *instance, char *errbuf,
			   size_t len);

/* Read a JSON file (a schema, usually).  Return a new reference, or NULL on
 * error (errno set; EINVAL for a parse error) with a message in errbuf. */
struct json_object *mw_json_read_file(const char *path, char *errbuf, size_t len);

#endif
