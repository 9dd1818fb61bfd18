/* fuzz_values.c - the small text parsers: partition values of every
 * primitive type, Hive escaping and percent decoding (round trip), log file
 * names, the stats JSON numRecords scanner, sizes ("128MiB") and Spark
 * intervals ("interval 7 days"). Byte 0 picks the parser; the rest is the
 * text. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/actions.h"
#include "delta/log_names.h"
#include "delta/partition.h"
#include "delta/props.h"
#include "loom/config.h"
#include "util/buf.h"
#include "util/percent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const type_names[] = {
	"string", "long", "integer", "short", "byte", "float", "double", "boolean", "binary",
	"date", "timestamp", "timestamp_ntz", "decimal(10,2)", "decimal(38,0)", "decimal(38,38)",
	"decimal(1,0)", "decimal(18,6)", "variant", "void"
};

static void partition_value(uint8_t pick, const char *text)
{
	delta_type t;
	delta_pvalue v;
	memset(&t, 0, sizeof(t));
	t.name = type_names[pick % (sizeof(type_names) / sizeof(type_names[0]))];
	t.kind = delta_type_kind_of(t.name, &t.precision, &t.scale);
	(void)delta_partition_value_parse(&t, text, &v);
	(void)delta_partition_value_parse(&t, NULL, &v);
}

static void escaping(const char *text, size_t len)
{
	loom_buf esc = LOOM_BUF_INIT, back = LOOM_BUF_INIT, enc = LOOM_BUF_INIT, dec = LOOM_BUF_INIT;
	/* Hive escaping and URI path encoding must decode to the original */
	if (loom_hive_escape(&esc, text, len) == 0 &&
	    (loom_percent_decode(&back, esc.ptr ? esc.ptr : "", esc.size) < 0 || back.size != len ||
	     (len && memcmp(back.ptr, text, len) != 0)))
		abort();
	if (loom_percent_encode_path(&enc, text, len) == 0) {
		loom_buf_clear(&back);
		if (loom_percent_decode(&back, enc.ptr ? enc.ptr : "", enc.size) < 0 || back.size != len ||
		    (len && memcmp(back.ptr, text, len) != 0))
			abort();
	}
	(void)loom_percent_decode(&dec, text, len);
	loom_buf_dispose(&esc);
	loom_buf_dispose(&back);
	loom_buf_dispose(&enc);
	loom_buf_dispose(&dec);
}

static void log_name(const char *text, size_t len)
{
	delta_log_name n;
	char digits[21];
	if (delta_log_name_parse(text, len, &n) == 1 && n.version >= 0) {
		delta_log_format_version(n.version, digits);
		if (strlen(digits) < 20)
			abort();
	}
}

static void size_and_interval(const char *text)
{
	int64_t v;
	char out[32];
	if (loom_size_parse(&v, text) == 0)
		loom_size_format(out, sizeof(out), v);
	(void)delta_interval_parse_ms(text, &v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	size_t len;
	if (size < 1)
		return 0;
	len = size - 1;
	text = malloc(len + 1);
	memcpy(text, data + 1, len);
	text[len] = '\0';
	switch (data[0] % 5) {
	case 0:
		partition_value((uint8_t)(data[0] / 5), text);
		break;
	case 1:
		escaping(text, len);
		break;
	case 2:
		log_name(text, len);
		break;
	case 3:
		(void)delta_stats_num_records(text, len);
		break;
	default:
		size_and_interval(text);
	}
	free(text);
	return 0;
}
