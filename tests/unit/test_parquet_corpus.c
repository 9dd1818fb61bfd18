/* test_parquet_corpus.c - replay the fuzzing corpus (fuzz/corpus/file:
 * fixture files, their mutations and every input that once crashed) and
 * all fixture files through the reader and the renderers. Each must end in
 * success or a clean error with a message; run under ASan/UBSan in the
 * sanitizer build, this is the regression test for fuzzer findings. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "loom/parquet.h"
#include "loom/store.h"
#include "parquet/reader.h"
#include "parquet/render.h"
#include "test.h"

static int sink(const char *line, size_t len, void *payload)
{
	(void)line;
	*(size_t *)payload += len;
	return 0;
}

/* Open and render every file of `dir`; returns how many failed without a
 * message. */
static int replay_dir(const char *dir, int *files)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	loom_store *s;
	int bad = 0;
	if (!d)
		return 0;
	if (loom_store_open_local(&s, dir) < 0) {
		closedir(d);
		return 1;
	}
	while ((e = readdir(d)) != NULL) {
		loom_parquet_file f;
		size_t total = 0;
		loom_parquet_cat_opts opt = LOOM_PARQUET_CAT_OPTS_INIT;
		int rc;
		if (e->d_name[0] == '.' || e->d_type == DT_DIR)
			continue;
		(*files)++;
		loom_error_clear();
		rc = pq_reader_open(&f.r, s, e->d_name);
		if (rc == 0) {
			pq_reader_set_limits(f.r, 1 << 22, 256 << 20);
			rc = loom_parquet_render_schema(&f, sink, &total);
			if (rc == 0)
				rc = loom_parquet_render_meta(&f, sink, &total);
			if (rc == 0)
				rc = loom_parquet_render_rows(&f, &opt, sink, &total);
			pq_reader_free(f.r);
		}
		if (rc < 0 && (!loom_error_last() || !loom_error_last()->message[0])) {
			fprintf(stderr, "%s/%s: error %d without a message\n", dir, e->d_name, rc);
			bad++;
		}
	}
	closedir(d);
	loom_store_free(s);
	return bad;
}

TEST(corpus_replays_cleanly)
{
	int files = 0;
	CHECK_INT(replay_dir(LOOM_SOURCE_DIR "/fuzz/corpus/file", &files), 0);
	CHECK(files >= 30);
	CHECK_INT(replay_dir(LOOM_FIXTURES_DIR "/parquet/data", &files), 0);
	CHECK_INT(replay_dir(LOOM_FIXTURES_DIR "/parquet/bad_data", &files), 0);
	printf("replayed %d files\n", files);
}

int main(void)
{
	RUN(corpus_replays_cleanly);
	return test_summary();
}
