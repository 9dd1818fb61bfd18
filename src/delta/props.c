/* delta/props.c - table properties and interval strings. */
#include "delta/props.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/error.h"

typedef struct unit_def {
	const char *name;          /* singular */
	int64_t us;                /* microseconds per unit; 0 = months */
} unit_def;

static const unit_def units[] = {
	{ "week", 7LL * 24 * 3600 * 1000000 },
	{ "day", 24LL * 3600 * 1000000 },
	{ "hour", 3600LL * 1000000 },
	{ "minute", 60LL * 1000000 },
	{ "second", 1000000 },
	{ "millisecond", 1000 },
	{ "microsecond", 1 },
	{ "month", 0 },
	{ "year", 0 },
};

static int bad_interval(const char *s, const char *why)
{
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "invalid interval \"%.100s\": %s",
	                s, why);
}

int delta_interval_parse_ms(const char *s, int64_t *out_ms)
{
	const char *p = s;
	int64_t total_us = 0;
	int terms = 0;

	if (!s)
		return bad_interval("(null)", "empty");
	while (isspace((unsigned char)*p))
		p++;
	if (strncasecmp(p, "interval", 8) == 0 &&
	    (isspace((unsigned char)p[8]) || p[8] == '\0'))
		p += 8;
	for (;;) {
		int neg = 0, have_digits = 0;
		int64_t whole = 0, frac_us = 0, term;
		size_t ulen, i;
		const unit_def *u = NULL;
		const char *ustart;

		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		if (*p == '-' || *p == '+')
			neg = *p++ == '-';
		while (isdigit((unsigned char)*p)) {
			if (whole > (INT64_MAX - 9) / 10)
				return bad_interval(s, "number too large");
			whole = whole * 10 + (*p++ - '0');
			have_digits = 1;
		}
		if (*p == '.') {
			int64_t scale = 100000;
			p++;
			while (isdigit((unsigned char)*p)) {
				if (scale == 0)
					return bad_interval(s, "more than 6 fractional digits");
				frac_us += (*p++ - '0') * scale;
				scale /= 10;
				have_digits = 1;
			}
			if (!frac_us && scale == 100000)
				return bad_interval(s, "a '.' without digits");
		}
		if (!have_digits)
			return bad_interval(s, "expected a number");
		while (isspace((unsigned char)*p))
			p++;
		ustart = p;
		while (isalpha((unsigned char)*p))
			p++;
		ulen = (size_t)(p - ustart);
		if (ulen == 0)
			return bad_interval(s, "a number without a unit");
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t n = strlen(units[i].name);
			if ((ulen == n || (ulen == n + 1 && tolower((unsigned char)ustart[n]) == 's')) &&
			    strncasecmp(ustart, units[i].name, n) == 0) {
				u = &units[i];
				break;
			}
		}
		if (!u)
			return bad_interval(s, "unknown unit (use week, day, hour, minute, second, "
			                       "millisecond or microsecond)");
		if (u->us == 0)
			return bad_interval(s, "months and years have no fixed length");
		if (frac_us && u->us != 1000000)
			return bad_interval(s, "fractions are allowed for seconds only");
		if (whole > INT64_MAX / u->us)
			return bad_interval(s, "too large");
		term = whole * u->us + frac_us;
		if (neg)
			term = -term;
		if ((term > 0 && total_us > INT64_MAX - term) ||
		    (term < 0 && total_us < INT64_MIN - term))
			return bad_interval(s, "too large");
		total_us += term;
		terms++;
	}
	if (!terms)
		return bad_interval(s, "empty");
	if (total_us < 0)
		return bad_interval(s, "negative");
	*out_ms = total_us / 1000;
	return 0;
}

static int bad_prop(const char *key, const char *v, const char *why)
{
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA,
	                "table property %s = \"%.100s\": %s", key, v, why);
}

static int parse_bool(const char *key, const char *v, int *out)
{
	if (strcasecmp(v, "true") == 0)
		*out = 1;
	else if (strcasecmp(v, "false") == 0)
		*out = 0;
	else
		return bad_prop(key, v, "expected true or false");
	return 0;
}

static int parse_long(const char *key, const char *v, int64_t min, int64_t *out)
{
	char *end;
	long long x;
	const char *p = v;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return bad_prop(key, v, "expected an integer");
	x = strtoll(p, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return bad_prop(key, v, "expected an integer");
	if (x < min)
		return bad_prop(key, v, "out of range");
	*out = x;
	return 0;
}

int delta_props_parse(const delta_metadata *m, delta_table_props *o)
{
	const delta_kv *kv = m->configuration;
	uint32_t n = m->num_configuration;
	const char *v;

	memset(o, 0, sizeof(*o));
	o->deleted_file_retention_ms = DELTA_DEFAULT_DELETED_FILE_RETENTION_MS;
	o->log_retention_ms = DELTA_DEFAULT_LOG_RETENTION_MS;
	o->checkpoint_interval = DELTA_DEFAULT_CHECKPOINT_INTERVAL;
	o->target_file_size = -1;
	o->data_skipping_num_indexed_cols = DELTA_DEFAULT_NUM_INDEXED_COLS;
	o->column_mapping_mode = "none";
	o->checkpoint_policy = "classic";
	o->enable_expired_log_cleanup = 1;

#define GET(k) ((v = delta_kv_get(kv, n, (k), NULL)) != NULL)
	if (GET("delta.deletedFileRetentionDuration") &&
	    delta_interval_parse_ms(v, &o->deleted_file_retention_ms) < 0)
		return loom_err_wrap("table property delta.deletedFileRetentionDuration");
	if (GET("delta.logRetentionDuration") &&
	    delta_interval_parse_ms(v, &o->log_retention_ms) < 0)
		return loom_err_wrap("table property delta.logRetentionDuration");
	if (GET("delta.checkpointInterval"))
		LOOM_TRY(parse_long("delta.checkpointInterval", v, 1, &o->checkpoint_interval));
	if (GET("delta.targetFileSize"))
		LOOM_TRY(parse_long("delta.targetFileSize", v, 1, &o->target_file_size));
	if (GET("delta.dataSkippingNumIndexedCols"))
		LOOM_TRY(parse_long("delta.dataSkippingNumIndexedCols", v, -1,
		                    &o->data_skipping_num_indexed_cols));
	if (GET("delta.dataSkippingStatsColumns"))
		o->data_skipping_stats_columns = v;
	if (GET("delta.columnMapping.mode")) {
		if (strcmp(v, "none") && strcmp(v, "id") && strcmp(v, "name"))
			return bad_prop("delta.columnMapping.mode", v, "expected none, id or name");
		o->column_mapping_mode = v;
	}
	if (GET("delta.enableDeletionVectors"))
		LOOM_TRY(parse_bool("delta.enableDeletionVectors", v, &o->enable_deletion_vectors));
	if (GET("delta.checkpointPolicy")) {
		if (strcmp(v, "classic") && strcmp(v, "v2"))
			return bad_prop("delta.checkpointPolicy", v, "expected classic or v2");
		o->checkpoint_policy = v;
	}
	if (GET("delta.enableInCommitTimestamps"))
		LOOM_TRY(parse_bool("delta.enableInCommitTimestamps", v,
		                    &o->enable_in_commit_timestamps));
	if (GET("delta.enableRowTracking"))
		LOOM_TRY(parse_bool("delta.enableRowTracking", v, &o->enable_row_tracking));
	if (GET("delta.appendOnly"))
		LOOM_TRY(parse_bool("delta.appendOnly", v, &o->append_only));
	if (GET("delta.enableChangeDataFeed"))
		LOOM_TRY(parse_bool("delta.enableChangeDataFeed", v, &o->enable_change_data_feed));
	if (GET("delta.enableExpiredLogCleanup"))
		LOOM_TRY(parse_bool("delta.enableExpiredLogCleanup", v,
		                    &o->enable_expired_log_cleanup));
#undef GET
	return 0;
}
