/* tests/helpers/snapshot_mem.c - where a loaded snapshot's memory goes,
 * per live file: `snapshot_mem TABLE [--no-stats] [--index [--stats-pass]]` loads the
 * latest snapshot with delta_snapshot_load (stats kept, as inspect and
 * checkpoint load it, unless --no-stats; into the compact file index with
 * --index, then printing its bytes; --stats-pass then reads every live
 * file's stats through it, in path order) and prints, per file, the bytes of each part
 * of today's representation, counted the way the arena and the replay's
 * containers allocate them (arena allocations round up to 16 bytes; the
 * reconciliation map keeps its load at or below 0.7 in 32-byte slots), next
 * to the process's peak RSS. The issue 30 budget (docs/file-index.md) is
 * written against these numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "delta/file_index.h"
#include "delta/snapshot.h"
#include "loom/errors.h"
#include "loom/store.h"
#include "util/hashmap.h"

static size_t r16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

static size_t str16(const char *s)
{
	return s ? r16(strlen(s) + 1) : 0;
}

static long rss_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(field);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, n) == 0)
			v = strtol(line + n, NULL, 10);
	fclose(f);
	return v;
}

typedef struct parts {
	double structs, key, path_raw, pv_arrays, pv_strings, tags, stats, dv, other;
} parts;

static void count(const delta_file *f, parts *p)
{
	uint32_t i;
	p->structs += r16(sizeof(*f));
	p->key += r16(f->key_len + 1);
	if (f->path_raw != f->path)
		p->path_raw += str16(f->path_raw);
	if (f->num_partition_values)
		p->pv_arrays += r16(f->num_partition_values * sizeof(delta_kv));
	for (i = 0; i < f->num_partition_values; i++)
		p->pv_strings += str16(f->partition_values[i].key) +
		                 str16(f->partition_values[i].value);
	if (f->num_tags)
		p->tags += r16(f->num_tags * sizeof(delta_kv));
	for (i = 0; i < f->num_tags; i++)
		p->tags += str16(f->tags[i].key) + str16(f->tags[i].value);
	p->stats += str16(f->stats);
	p->dv += str16(f->dv.path_or_inline_dv);
	p->other += str16(f->clustering_provider);
}

static size_t map_slots(size_t count)
{
	size_t cap = 16;
	while (cap * 7 / 10 < count)
		cap *= 2;
	return cap;
}

static size_t vec_cap(size_t n)
{
	size_t cap = 8;
	while (cap < n)
		cap *= 2;
	return n ? cap : 0;
}

/* Every live file's stats through the index, timed. */
static int stats_all(const delta_snapshot *s, loom_store *store)
{
	delta_stats_reader rd;
	loom_buf b = LOOM_BUF_INIT;
	size_t i, with = 0, bytes = 0;
	struct timespec t0, t1;
	int rc = 0;

	delta_stats_reader_init(&rd, store);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; rc == 0 && i < s->num_files; i++) {
		int found = 0;
		rc = delta_file_index_stats(s->index, &rd, DELTA_FILES_LIVE, i, &b, &found);
		with += (size_t)found;
		bytes += b.size;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	delta_stats_reader_dispose(&rd);
	loom_buf_dispose(&b);
	printf("stats pass: %zu files with stats, %zu bytes, %.2f s; peak RSS now %ld KiB\n", with,
	       bytes, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       rss_kib("VmHWM:"));
	return rc;
}

int main(int argc, char **argv)
{
	loom_store *store = NULL;
	delta_snapshot *s = NULL;
	delta_load_opts o;
	int stats_pass = 0;
	parts p;
	size_t i, n, all;
	long base_hwm;
	double per;

	delta_load_opts_init(&o);
	for (i = 2; i < (size_t)argc; i++) {
		if (strcmp(argv[i], "--no-stats") == 0)
			o.keep_stats = 0;
		else if (strcmp(argv[i], "--index") == 0)
			o.file_index = 1;
		else if (strcmp(argv[i], "--stats-pass") == 0)
			stats_pass = 1;
		else
			argc = 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: snapshot_mem TABLE [--no-stats] [--index]\n");
		return 2;
	}
	if (loom_store_open(&store, argv[1], NULL) < 0) {
		fprintf(stderr, "snapshot_mem: %s\n", loom_error_last()->message);
		return 1;
	}
	base_hwm = rss_kib("VmHWM:");
	if (delta_snapshot_load(&s, store, -1, &o) < 0) {
		fprintf(stderr, "snapshot_mem: %s\n", loom_error_last()->message);
		return 1;
	}
	if (s->index) {
		n = s->num_files;
		printf("live files %zu, tombstones %zu, stats %s, in the file index\n", n,
		       s->num_tombstones, o.keep_stats ? "kept (referenced where the log allows)" : "dropped");
		printf("  index bytes per live file              %7.1f\n",
		       n ? (double)delta_file_index_memory(s->index) / (double)n : 0.0);
		printf("process: peak RSS %ld KiB (before load %ld KiB), now %ld KiB; "
		       "peak per live file %.1f B\n",
		       rss_kib("VmHWM:"), base_hwm, rss_kib("VmRSS:"),
		       n ? (double)(rss_kib("VmHWM:") - base_hwm) * 1024.0 / (double)n : 0.0);
		if (stats_pass && stats_all(s, store) < 0) {
			fprintf(stderr, "snapshot_mem: %s\n", loom_error_last()->message);
			return 1;
		}
		delta_snapshot_free(s);
		loom_store_free(store);
		return 0;
	}
	memset(&p, 0, sizeof(p));
	for (i = 0; i < s->num_files; i++)
		count(s->files[i], &p);
	for (i = 0; i < s->num_tombstones; i++)
		count(s->tombstones[i], &p);
	n = s->num_files;
	all = n + s->num_tombstones;
	per = n ? 1.0 / (double)n : 0;
	printf("live files %zu, tombstones %zu, stats %s\n", n, s->num_tombstones,
	       o.keep_stats ? "kept" : "dropped");
	printf("per live file, bytes (adds and tombstones counted, divided by live files):\n");
	printf("  delta_file struct (%zu, arena-rounded)  %7.1f\n", sizeof(delta_file), p.structs * per);
	printf("  key = decoded path + DV id             %7.1f\n", p.key * per);
	printf("  path_raw (when it differs)             %7.1f\n", p.path_raw * per);
	printf("  partition value kv arrays              %7.1f\n", p.pv_arrays * per);
	printf("  partition value strings (key, value)   %7.1f\n", p.pv_strings * per);
	printf("  tags                                   %7.1f\n", p.tags * per);
	printf("  stats JSON text                        %7.1f\n", p.stats * per);
	printf("  DV path/inline text                    %7.1f\n", p.dv * per);
	printf("  clustering provider                    %7.1f\n", p.other * per);
	printf("  files + tombstones pointer arrays      %7.1f\n", 8.0 * (double)(all + 2) * per);
	printf("  arena total (all of the above + slack) %7.1f\n", (double)s->arena.total * per);
	printf("transient during replay:\n");
	printf("  reconciliation map slots (32 B each)   %7.1f\n",
	       32.0 * (double)map_slots(all) * per);
	printf("  map resize (old + new table at once)   %7.1f\n",
	       32.0 * 1.5 * (double)map_slots(all) * per);
	printf("  file pointer vectors (doubling)        %7.1f\n",
	       8.0 * (double)(vec_cap(n) + vec_cap(s->num_tombstones)) * per);
	printf("process: peak RSS %ld KiB (before load %ld KiB), now %ld KiB; "
	       "peak per live file %.1f B\n",
	       rss_kib("VmHWM:"), base_hwm, rss_kib("VmRSS:"),
	       n ? (double)(rss_kib("VmHWM:") - base_hwm) * 1024.0 / (double)n : 0.0);
	delta_snapshot_free(s);
	loom_store_free(store);
	return 0;
}
