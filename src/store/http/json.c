/* store/http/json.c - numbers in services' JSON answers (see json.h). */
#include <stdlib.h>

#include "store/http/json.h"

int64_t json_int64_of(const json_t *v)
{
	if (json_is_integer(v))
		return (int64_t)json_integer_value(v);
	if (json_is_string(v))
		return (int64_t)strtoll(json_string_value(v), NULL, 10);
	return 0;
}
