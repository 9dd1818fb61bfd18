/* ops/pipeline/pipe_write.c - the writer stage: batches -> target-size data files
 * with Delta stats. */
#include "ops/pipeline/pipe_write.h"

#include <string.h>

#include "codec/codec.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/percent.h"
#include "util/uuid.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

void pipe_writer_init(pipe_writer *pw, const pipe_settings *set, const pq_schema_node *nodes,
                      size_t num_nodes, const pq_schema *schema, const delta_file *like,
                      const pq_writer_opts *wopts, pipe_result *res)
{
	memset(pw, 0, sizeof(*pw));
	pw->set = set;
	pw->nodes = nodes;
	pw->num_nodes = num_nodes;
	pw->schema = schema;
	pw->stats_leaves = schema->num_leaves;
	pw->like = like;
	pw->wopts = *wopts;
	pw->res = res;
	pw->in_left = -1;
}

static int new_output_key(const pipe_settings *set, const delta_file *first, loom_buf *key)
{
	char uuid[37];
	const char *tag = loom_codec_file_tag(set->wopts.codec);
	LOOM_TRY(pipe_partition_dir(set->snap, first, key));
	LOOM_TRY(loom_uuid_v4_string(uuid));
	return loom_buf_printf(key, "part-00000-%s-c000%s%s.parquet", uuid, tag ? "." : "", tag ? tag : "");
}

static int writer_start(pipe_writer *ws)
{
	loom_buf key = LOOM_BUF_INIT;
	int rc;
	if ((rc = new_output_key(ws->set, ws->like, &key)) < 0) {
		loom_buf_dispose(&key);
		return rc;
	}
	ws->key = loom_buf_detach(&key);
	ws->file_rows = 0;
	ws->file_in = 0;
	if (!ws->key)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	rc = ws->set->store->writer_open(ws->set->store, ws->key, LOOM_PUT_IF_ABSENT, &ws->sink);
	if (rc < 0)
		return loom_err_wrap("creating %s", ws->key);
	rc = pq_writer_open(&ws->w, ws->sink, ws->nodes, ws->num_nodes, &ws->wopts);
	if (rc < 0) {
		ws->sink->abort(ws->sink);
		ws->sink = NULL;
		return loom_err_wrap("writing %s", ws->key);
	}
	return 0;
}

void pipe_writer_abort(pipe_writer *ws)
{
	pq_writer_free(ws->w);
	ws->w = NULL;
	if (ws->sink)
		ws->sink->abort(ws->sink);
	ws->sink = NULL;
	loom_free(ws->key);
	ws->key = NULL;
}

static int finish_file(pipe_writer *ws)
{
	pq_write_result wr;
	pipe_output *o, *grown;
	delta_stats_leaf *leaves = NULL;
	loom_buf stats = LOOM_BUF_INIT, raw = LOOM_BUF_INIT;
	size_t i;
	int rc;

	memset(&wr, 0, sizeof(wr));
	rc = pq_writer_close(ws->w, &wr);
	ws->w = NULL;
	if (rc < 0) {
		loom_err_wrap("writing %s", ws->key);
		goto fail;
	}
	rc = ws->sink->commit(ws->sink);
	ws->sink = NULL;
	if (rc < 0) {
		loom_err_wrap("publishing %s", ws->key);
		goto fail;
	}
	/* recorded first: from here on the file exists and must be cleaned up */
	grown = loom_reallocarray(ws->res->files, ws->res->num_files + 1, sizeof(*grown));
	if (!grown) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		ws->set->store->remove(ws->set->store, ws->key);
		goto fail;
	}
	ws->res->files = grown;
	o = &grown[ws->res->num_files++];
	memset(o, 0, sizeof(*o));
	o->key = ws->key;
	ws->key = NULL;
	o->size = (int64_t)wr.file_size;
	o->num_records = wr.num_rows;
	o->modification_time = loom_clock_wall_ms(NULL);
	if ((rc = loom_percent_encode_path(&raw, o->key, strlen(o->key))) < 0)
		goto out;
	o->path_raw = loom_buf_detach(&raw);
	leaves = loom_calloc(wr.num_leaves ? wr.num_leaves : 1, sizeof(*leaves));
	if (!leaves || wr.num_leaves != ws->schema->num_leaves) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < wr.num_leaves; i++) {
		delta_stats_leaf_from_schema(&leaves[i], ws->schema, i);
		leaves[i].null_count = wr.leaves[i].null_count;
		leaves[i].has_min_max = wr.leaves[i].has_min_max;
		leaves[i].min = wr.leaves[i].min;
		leaves[i].max = wr.leaves[i].max;
		leaves[i].min_len = wr.leaves[i].min_len;
		leaves[i].max_len = wr.leaves[i].max_len;
	}
	if ((rc = delta_stats_json(&stats, wr.num_rows, leaves,
	                           ws->stats_leaves < wr.num_leaves ? ws->stats_leaves : wr.num_leaves,
	                           &ws->set->sopts)) < 0)
		goto out;
	o->stats = loom_buf_detach(&stats);
	if (!o->stats || !o->path_raw)
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
out:
	loom_free(leaves);
	loom_buf_dispose(&stats);
	loom_buf_dispose(&raw);
	pq_write_result_free(&wr);
	return rc;
fail:
	pipe_writer_abort(ws);
	pq_write_result_free(&wr);
	return rc;
}

/* The open file's size after `rows` more rows: its bytes per row so far
 * (the writer's estimate of its encoded size) times its rows after them. */
static double size_after(const pipe_writer *ws, int64_t rows)
{
	double per_row = (double)pq_writer_estimated_size(ws->w) / (double)ws->file_rows;
	return (double)(ws->file_rows + rows) * per_row;
}

/* Whether to start a new file before `rows` more rows standing for
 * `in_bytes` of input: they would take the open file past the target
 * (counted in input bytes, or in the writer's estimate of its encoded
 * size, whichever is larger), and what is left of the unit (when known)
 * would make a file of at least half the target; otherwise the file takes
 * it rather than leave a small file behind. Pages still being filled are
 * estimated uncompressed; near the target they are compressed first, for
 * an exact answer. */
static int would_overflow(const pipe_writer *ws, int64_t rows, double in_bytes, int *rc)
{
	double target = (double)ws->set->file_bytes;
	*rc = 0;
	if (!ws->set->file_bytes || !ws->w || ws->file_rows == 0)
		return 0;
	if (ws->file_in + in_bytes <= target) {
		if (size_after(ws, rows) <= target)
			return 0;
		if ((*rc = pq_writer_flush_pages(ws->w)) < 0 || size_after(ws, rows) <= target)
			return 0;
	}
	/* a new file would get these rows and the rest of the unit */
	return ws->in_left < 0 || ws->in_left >= target / 2;
}

static void account(pipe_writer *ws, int64_t rows, double in_bytes)
{
	ws->file_rows += rows;
	ws->file_in += in_bytes;
	if (ws->in_left >= 0)
		ws->in_left = ws->in_left > in_bytes ? ws->in_left - in_bytes : 0;
	ws->res->batches++;
}

int pipe_writer_put(pipe_writer *ws, const pq_batch *b, double in_bytes)
{
	int rc;
	if (b->num_rows == 0)
		return 0;
	if (would_overflow(ws, (int64_t)b->num_rows, in_bytes, &rc))
		LOOM_TRY(finish_file(ws));
	LOOM_TRY(rc);
	if (!ws->w)
		LOOM_TRY(writer_start(ws));
	if (pq_writer_write(ws->w, b) < 0)
		return loom_err_wrap("writing %s", ws->key);
	account(ws, (int64_t)b->num_rows, in_bytes);
	return 0;
}

int pipe_writer_copy(pipe_writer *ws, pq_reader *r, size_t g)
{
	const pq_row_group *rg = &pq_reader_meta(r)->row_groups[g];
	int64_t bytes = rg->has_total_compressed_size ? rg->total_compressed_size : rg->total_byte_size;
	int rc;
	if (!ws->set->copy_min_bytes || rg->num_rows <= 0 || bytes < 0 || (uint64_t)bytes < ws->set->copy_min_bytes)
		return 0;
	if (would_overflow(ws, rg->num_rows, (double)bytes, &rc))
		LOOM_TRY(finish_file(ws));
	LOOM_TRY(rc);
	if (!ws->w)
		LOOM_TRY(writer_start(ws));
	if (!pq_writer_can_copy(ws->w, r, g))
		return 0;
	if (pq_writer_copy_row_group(ws->w, r, g) < 0)
		return loom_err_wrap("writing %s", ws->key);
	account(ws, rg->num_rows, (double)bytes);
	return 1;
}

int pipe_writer_finish(pipe_writer *ws)
{
	return ws->w ? finish_file(ws) : 0;
}
