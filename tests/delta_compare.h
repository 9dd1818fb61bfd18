/* tests/delta_compare.h - comparing delta_file values field by field, and
 * walking every fixture table (the unit tests that check one
 * representation of a snapshot against another). */
#ifndef LOOM_TEST_DELTA_COMPARE_H
#define LOOM_TEST_DELTA_COMPARE_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "delta/actions.h"

static inline int test_same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static inline int test_same_kv(const delta_kv *a, uint32_t na, const delta_kv *b, uint32_t nb)
{
	uint32_t i;
	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (!test_same_str(a[i].key, b[i].key) || !test_same_str(a[i].value, b[i].value))
			return 0;
	return 1;
}

/* Every field of two files (paths, key, partition values, tags, sizes,
 * times, stats, DV, row tracking, flags). */
static inline int test_same_file(const delta_file *v, const delta_file *f)
{
	return strcmp(v->path, f->path) == 0 && strcmp(v->path_raw, f->path_raw) == 0 &&
	       v->key_len == f->key_len && memcmp(v->key, f->key, f->key_len) == 0 &&
	       test_same_kv(v->partition_values, v->num_partition_values, f->partition_values,
	                    f->num_partition_values) &&
	       test_same_kv(v->tags, v->num_tags, f->tags, f->num_tags) && v->size == f->size &&
	       v->modification_time == f->modification_time &&
	       v->deletion_timestamp == f->deletion_timestamp && v->num_records == f->num_records &&
	       v->base_row_id == f->base_row_id &&
	       v->default_row_commit_version == f->default_row_commit_version &&
	       test_same_str(v->stats, f->stats) &&
	       test_same_str(v->clustering_provider, f->clustering_provider) &&
	       v->dv.storage_type == f->dv.storage_type &&
	       test_same_str(v->dv.path_or_inline_dv, f->dv.path_or_inline_dv) &&
	       v->dv.offset == f->dv.offset && v->dv.size_in_bytes == f->dv.size_in_bytes &&
	       v->dv.cardinality == f->dv.cardinality && v->version == f->version &&
	       v->is_add == f->is_add && v->data_change == f->data_change &&
	       v->extended_file_metadata == f->extended_file_metadata &&
	       v->has_stats_parsed == f->has_stats_parsed;
}

/* fn(table directory, ctx) for every table under fixtures/delta; returns
 * how many, -1 when the directory cannot be read. */
static inline int test_each_fixture(void (*fn)(const char *table, void *ctx), void *ctx)
{
	char root[4096];
	DIR *d;
	struct dirent *e;
	int n = 0;
	snprintf(root, sizeof(root), "%s/delta", LOOM_FIXTURES_DIR);
	if (!(d = opendir(root)))
		return -1;
	while ((e = readdir(d))) {
		char table[4600];
		if (e->d_name[0] == '.')
			continue;
		snprintf(table, sizeof(table), "%s/%s", root, e->d_name);
		fn(table, ctx);
		n++;
	}
	closedir(d);
	return n;
}

#endif
