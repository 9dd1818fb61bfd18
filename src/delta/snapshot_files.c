/* delta/snapshot_files.c - a snapshot's live files by position, from its
 * arrays or from the compact file index (issue 30), so a reader written
 * against positions works on a snapshot loaded either way. */
#include "delta/snapshot.h"

#include <string.h>

#include "util/error.h"

static int out_of_range(size_t i)
{
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "live file position %zu out of range", i);
}

static int tombstone_out_of_range(size_t i)
{
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "tombstone position %zu out of range", i);
}

int delta_snapshot_live_file(const delta_snapshot *s, size_t i, delta_file_scratch *sc,
                             delta_file *out)
{
	if (s->index)
		return delta_file_index_get(s->index, DELTA_FILES_LIVE, i, sc, out);
	if (i >= s->num_files)
		return out_of_range(i);
	*out = *s->files[i];
	return 0;
}

int delta_snapshot_live_brief(const delta_snapshot *s, size_t i, delta_file_brief *out)
{
	if (s->index)
		return delta_file_index_brief(s->index, DELTA_FILES_LIVE, i, out);
	if (i >= s->num_files)
		return out_of_range(i);
	out->size = s->files[i]->size;
	out->time = s->files[i]->modification_time;
	out->version = s->files[i]->version;
	return 0;
}

int delta_snapshot_live_stats(const delta_snapshot *s, delta_stats_reader *rd, size_t i,
                              delta_file_scratch *sc, delta_file *out)
{
	int found = 0;
	if (!s->index || out->stats)
		return 0;
	LOOM_TRY(delta_file_index_stats(s->index, rd, DELTA_FILES_LIVE, i, &sc->tmp, &found));
	if (!found)
		return 0;
	out->stats = loom_arena_strndup(&sc->arena, sc->tmp.ptr ? sc->tmp.ptr : "", sc->tmp.size);
	if (!out->stats)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory reading a file's stats");
	return 0;
}

int delta_snapshot_live_has_stats(const delta_snapshot *s, size_t i)
{
	if (s->index)
		return delta_file_index_has_stats(s->index, DELTA_FILES_LIVE, i);
	if (i >= s->num_files)
		return out_of_range(i);
	return s->files[i]->stats != NULL;
}

long long delta_snapshot_live_find(const delta_snapshot *s, const char *path)
{
	size_t lo = 0, hi = s->files ? s->num_files : 0;
	if (s->index)
		return delta_file_index_find(s->index, path);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->files[mid]->path, path);
		if (c == 0)
			return (long long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int delta_snapshot_tombstone(const delta_snapshot *s, size_t i, delta_file_scratch *sc,
                             delta_file *out)
{
	if (s->index)
		return delta_file_index_get(s->index, DELTA_FILES_TOMBSTONES, i, sc, out);
	if (i >= s->num_tombstones)
		return tombstone_out_of_range(i);
	*out = *s->tombstones[i];
	return 0;
}
