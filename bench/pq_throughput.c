/* bench/pq_throughput.c - Parquet decode and decode+encode throughput of
 * loom's engine on a folder of files, for bench/parquet_throughput.sh.
 *
 *   pq_throughput read DIR            decode every column of every file
 *   pq_throughput rewrite DIR OUTDIR  decode and re-encode each file (snappy)
 *
 * Files are processed two at a time (one per core), as the peers use two
 * threads. Prints one JSON line: files, rows, input bytes. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loom/errors.h"
#include "loom/store.h"
#include "parquet/meta.h"
#include "parquet/reader.h"
#include "parquet/writer.h"

typedef struct job {
	const char *dir, *outdir;
	char **names;
	size_t n, next;
	int rewrite;
	long long rows, bytes;
	int failed;
	pthread_mutex_t lock;
} job;

/* One worker's reader and batch, reused file after file (as loom's
 * rewrite pipeline does), so the loop touches no fresh memory. */
static int one_file(job *j, loom_store *in, loom_store *out, const char *name, long long *rows,
                    long long *bytes, pq_reader **rp, pq_batch *bp)
{
	pq_batch b = *bp;
	pq_reader *r = *rp;
	const pq_file_meta *m;
	pq_writer *w = NULL;
	loom_store_writer *sink = NULL;
	size_t rg;
	int rc;

	rc = r ? pq_reader_reopen(r, name) : pq_reader_open(rp, in, name);
	if (rc < 0)
		return rc;
	r = *rp;
	m = pq_reader_meta(r);
	*bytes += (long long)pq_reader_file_size(r);
	if (j->rewrite) {
		if ((rc = out->writer_open(out, name, 0, &sink)) < 0 ||
		    (rc = pq_writer_open(&w, sink, m->schema, m->num_schema, NULL)) < 0)
			goto done;
	}
	for (rg = 0; rg < m->num_row_groups; rg++) {
		if ((rc = pq_reader_read_row_group(r, rg, NULL, 0, &b)) < 0)
			goto done;
		*rows += (long long)b.num_rows;
		if (w && (rc = pq_writer_write(w, &b)) < 0)
			goto done;
	}
	if (w) {
		rc = pq_writer_close(w, NULL);
		w = NULL;
		if (rc == 0) {
			rc = sink->commit(sink);
			sink = NULL;
		}
	}
done:
	pq_writer_free(w);
	if (sink)
		sink->abort(sink);
	*bp = b;
	return rc;
}

static void *worker(void *arg)
{
	job *j = arg;
	loom_store *in, *out = NULL;
	long long rows = 0, bytes = 0;
	pq_reader *r = NULL;
	pq_batch b;
	memset(&b, 0, sizeof(b));
	if (loom_store_open_local(&in, j->dir) < 0 || (j->rewrite && loom_store_open_local(&out, j->outdir) < 0)) {
		j->failed = 1;
		return NULL;
	}
	for (;;) {
		size_t i;
		pthread_mutex_lock(&j->lock);
		i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->n)
			break;
		if (one_file(j, in, out, j->names[i], &rows, &bytes, &r, &b) < 0) {
			const loom_error *e = loom_error_last();
			fprintf(stderr, "%s: %s\n", j->names[i], e ? e->message : "failed");
			j->failed = 1;
			break;
		}
	}
	pthread_mutex_lock(&j->lock);
	j->rows += rows;
	j->bytes += bytes;
	pthread_mutex_unlock(&j->lock);
	pq_batch_free(&b);
	pq_reader_free(r);
	loom_store_free(in);
	loom_store_free(out);
	return NULL;
}

int main(int argc, char **argv)
{
	job j;
	DIR *d;
	struct dirent *de;
	pthread_t t[2];
	int i;

	memset(&j, 0, sizeof(j));
	if (argc < 3 || (strcmp(argv[1], "rewrite") == 0 && argc < 4)) {
		fprintf(stderr, "usage: pq_throughput read DIR | rewrite DIR OUTDIR\n");
		return 2;
	}
	j.dir = argv[2];
	j.rewrite = strcmp(argv[1], "rewrite") == 0;
	j.outdir = j.rewrite ? argv[3] : NULL;
	pthread_mutex_init(&j.lock, NULL);
	if (!(d = opendir(j.dir))) {
		perror(j.dir);
		return 1;
	}
	j.names = calloc(100000, sizeof(char *));
	while ((de = readdir(d)) && j.n < 100000)
		if (strstr(de->d_name, ".parquet") && de->d_name[0] != '.')
			j.names[j.n++] = strdup(de->d_name);
	closedir(d);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, &j);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("{\"engine\":\"loom\",\"job\":\"%s\",\"files\":%zu,\"rows\":%lld,\"input_bytes\":%lld}\n",
	       argv[1], j.n, j.rows, j.bytes);
	return j.failed ? 1 : 0;
}
