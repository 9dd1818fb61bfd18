/* ops/zorder/zorder_spill.c - raw column-batch chunks in anonymous temp files.
 *
 * Chunk: a 32-byte header (magic, body bytes, rows, columns), then the
 * body: the rows' keys, and per column a 40-byte header followed by its
 * arrays (def levels, rep levels, values or offsets + bytes), each padded
 * to 8 bytes so they can be used in place when read back. */

#include "ops/zorder/zorder_spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/vec.h"

#define SPILL_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)
#define CHUNK_MAGIC UINT64_C(0x4c504b535a4d4f4c) /* "LOMZSKPL" */
#define CHUNK_HEADER 32
#define COLUMN_HEADER 40
#define MAX_CHUNK_BODY ((uint64_t)1 << 34)

int zspill_budget_init(zspill_budget *b, const char *dir, uint64_t cap)
{
	struct statvfs st;
	memset(b, 0, sizeof(*b));
	if (!dir || !*dir)
		dir = getenv("LOOM_TMPDIR");
	if (!dir || !*dir)
		dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	b->dir = dir;
	if (cap > 0) {
		b->cap = cap;
		return 0;
	}
	/* an unusable dir is reported when a spill is first created there */
	b->cap = statvfs(dir, &st) == 0 ? (uint64_t)st.f_bavail * (uint64_t)st.f_frsize / 10 * 9 : UINT64_MAX;
	return 0;
}

int zspill_open(zspill *s, zspill_budget *budget)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->budget = budget;
#ifdef O_TMPFILE
	s->fd = open(budget->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
	if (s->fd < 0) {
		/* no O_TMPFILE here: create, then unlink at once */
		size_t n = strlen(budget->dir) + 32;
		char *path = loom_malloc(n);
		if (!path)
			return SPILL_ERR(LOOM_ENOMEM, "out of memory");
		snprintf(path, n, "%s/loom-zspill-XXXXXX", budget->dir);
		s->fd = mkostemp(path, O_CLOEXEC);
		if (s->fd >= 0)
			unlink(path);
		loom_free(path);
	}
	if (s->fd < 0)
		return SPILL_ERR(LOOM_EIO, "creating a Z-order spill file in %s: %s", budget->dir, strerror(errno));
	return 0;
}

void zspill_close(zspill *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* ---- writing ------------------------------------------------------------ */

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* A chunk as a list of pieces written with pwritev, straight from the
 * batch's arrays (no staging copy of the chunk). */
typedef struct pieces {
	struct iovec *iov;
	size_t n, cap, len;
	uint8_t *heads;               /* column headers, COLUMN_HEADER each */
	uint32_t *rebased;            /* offsets rebased to 0, when they are not */
} pieces;

static const uint8_t zero_pad[8];

static int piece(pieces *p, const void *ptr, size_t n)
{
	size_t pad = pad8(n) - n;
	LOOM_TRY(loom_array_grow((void **)&p->iov, &p->cap, p->n + 2, sizeof(struct iovec)));
	if (n)
		p->iov[p->n++] = (struct iovec){ (void *)(uintptr_t)ptr, n };
	if (pad)
		p->iov[p->n++] = (struct iovec){ (void *)(uintptr_t)zero_pad, pad };
	p->len += n + pad;
	return 0;
}

static void pieces_dispose(pieces *p)
{
	loom_free(p->iov);
	loom_free(p->heads);
	loom_free(p->rebased);
}

static int writev_fully(int fd, struct iovec *iov, size_t n, uint64_t off)
{
	while (n > 0) {
		int cnt = n > IOV_MAX ? IOV_MAX : (int)n;
		ssize_t w = pwritev(fd, iov, cnt, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (uint64_t)w;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0 && w > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

int zspill_write(zspill *s, const pq_batch *b, const uint64_t *keys)
{
	pieces p = { 0 };
	uint64_t head[4], total;
	size_t i, rebased_n = 0;
	int rc = 0;

	if (b->num_rows == 0)
		return 0;
	p.heads = loom_malloc(b->num_columns * COLUMN_HEADER + 1);
	for (i = 0; i < b->num_columns; i++) {
		const pq_column *c = &b->columns[i];
		if (c->type == PQ_BYTE_ARRAY && c->offsets && c->num_values && c->offsets[0] != 0)
			rebased_n += c->num_values + 1;
	}
	if (rebased_n)
		p.rebased = loom_malloc(rebased_n * sizeof(uint32_t));
	if (!p.heads || (rebased_n && !p.rebased)) {
		pieces_dispose(&p);
		return SPILL_ERR(LOOM_ENOMEM, "out of memory writing a Z-order spill");
	}
	rc = piece(&p, head, CHUNK_HEADER);
	if (rc == 0)
		rc = piece(&p, keys, b->num_rows * sizeof(uint64_t));
	rebased_n = 0;
	for (i = 0; rc == 0 && i < b->num_columns; i++) {
		const pq_column *c = &b->columns[i];
		uint8_t *ch = p.heads + i * COLUMN_HEADER;
		uint32_t type = (uint32_t)c->type, flags = (c->def_levels != NULL) | (c->rep_levels != NULL) << 1;
		uint64_t nl = c->num_levels, nv = c->num_values, ds = c->data_size;
		size_t w = pq_value_width(c->type, c->type_length);
		const uint32_t *offs = c->offsets;
		if (c->type == PQ_BYTE_ARRAY)
			ds = offs && nv ? offs[nv] - offs[0] : 0;
		memcpy(ch, &type, 4);
		memcpy(ch + 4, &c->type_length, 4);
		memcpy(ch + 8, &c->max_def, 2);
		memcpy(ch + 10, &c->max_rep, 2);
		memcpy(ch + 12, &flags, 4);
		memcpy(ch + 16, &nl, 8);
		memcpy(ch + 24, &nv, 8);
		memcpy(ch + 32, &ds, 8);
		rc = piece(&p, ch, COLUMN_HEADER);
		if (rc == 0 && c->def_levels)
			rc = piece(&p, c->def_levels, nl * sizeof(int16_t));
		if (rc == 0 && c->rep_levels)
			rc = piece(&p, c->rep_levels, nl * sizeof(int16_t));
		if (rc == 0 && c->type == PQ_BYTE_ARRAY) {
			if (offs && nv) {
				/* the body's bytes start at offsets[0]: offsets rebased to 0 */
				if (offs[0] != 0) {
					uint32_t *r = p.rebased + rebased_n, k;
					for (k = 0; k <= nv; k++)
						r[k] = offs[k] - offs[0];
					rebased_n += nv + 1;
					offs = r;
				}
				rc = piece(&p, offs, (nv + 1) * sizeof(uint32_t));
				if (rc == 0)
					rc = piece(&p, c->data + c->offsets[0], (size_t)ds);
			} else {
				rc = piece(&p, zero_pad, sizeof(uint32_t));
			}
		} else if (rc == 0) {
			rc = piece(&p, c->values, (size_t)nv * w);
		}
	}
	if (rc < 0) {
		pieces_dispose(&p);
		return rc;
	}
	total = __atomic_add_fetch(&s->budget->used, (uint64_t)p.len, __ATOMIC_RELAXED);
	if (total > s->budget->cap) {
		pieces_dispose(&p);
		return SPILL_ERR(LOOM_EIO,
		                 "Z-order spill files in %s would exceed their cap of %llu bytes: give the "
		                 "run more memory or more temp space", s->budget->dir,
		                 (unsigned long long)s->budget->cap);
	}
	head[0] = CHUNK_MAGIC;
	head[1] = (uint64_t)(p.len - CHUNK_HEADER);
	head[2] = (uint64_t)b->num_rows;
	head[3] = (uint64_t)b->num_columns;
	/* workers share a spill: each chunk takes its own byte range */
	if (writev_fully(s->fd, p.iov, p.n, __atomic_fetch_add(&s->bytes, (uint64_t)p.len, __ATOMIC_RELAXED)) < 0) {
		int e = errno;
		pieces_dispose(&p);
		return SPILL_ERR(LOOM_EIO, "writing a Z-order spill file in %s: %s", s->budget->dir, strerror(e));
	}
	pieces_dispose(&p);
	__atomic_add_fetch(&s->rows, (uint64_t)b->num_rows, __ATOMIC_RELAXED);
	return 0;
}

/* ---- reading ------------------------------------------------------------ */

static int read_fully(int fd, uint8_t *p, size_t n, uint64_t off)
{
	while (n > 0) {
		ssize_t r = pread(fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

typedef struct cursor {
	const uint8_t *p;
	size_t left;
} cursor;

static const uint8_t *take(cursor *c, uint64_t n)
{
	const uint8_t *q = c->p;
	uint64_t padded = (n + 7) & ~(uint64_t)7;
	if (n > c->left || padded > c->left)
		return NULL;
	c->p += padded;
	c->left -= (size_t)padded;
	return q;
}

static int corrupt(const zspill *s, uint64_t off)
{
	return SPILL_ERR(LOOM_ECORRUPT, "Z-order spill file in %s: bad chunk at byte %llu", s->budget->dir,
	                 (unsigned long long)off);
}

/* One chunk's body as a borrowed batch pointing into `body`. */
static int parse_chunk(const zspill *s, uint64_t off, const uint8_t *body, size_t len, uint64_t rows,
                       pq_batch *view, const uint64_t **keys)
{
	cursor c = { body, len };
	size_t i;
	if (!(*keys = (const void *)take(&c, rows * sizeof(uint64_t))))
		return corrupt(s, off);
	for (i = 0; i < view->num_columns; i++) {
		pq_column *col = &view->columns[i];
		const uint8_t *h = take(&c, COLUMN_HEADER);
		uint32_t type, flags;
		uint64_t nl, nv, ds;
		size_t w;
		if (!h)
			return corrupt(s, off);
		memset(col, 0, sizeof(*col));
		memcpy(&type, h, 4);
		memcpy(&col->type_length, h + 4, 4);
		memcpy(&col->max_def, h + 8, 2);
		memcpy(&col->max_rep, h + 10, 2);
		memcpy(&flags, h + 12, 4);
		memcpy(&nl, h + 16, 8);
		memcpy(&nv, h + 24, 8);
		memcpy(&ds, h + 32, 8);
		col->type = (pq_physical_type)type;
		col->num_levels = (size_t)nl;
		col->num_values = (size_t)nv;
		col->data_size = (size_t)ds;
		if (nl > len || nv > len || nv > nl)
			return corrupt(s, off);
		if ((flags & 1) && !(col->def_levels = (int16_t *)(void *)take(&c, nl * sizeof(int16_t))))
			return corrupt(s, off);
		if ((flags & 2) && !(col->rep_levels = (int16_t *)(void *)take(&c, nl * sizeof(int16_t))))
			return corrupt(s, off);
		if (col->type == PQ_BYTE_ARRAY) {
			uint64_t noff = nv ? nv + 1 : 1;
			if (!(col->offsets = (uint32_t *)(void *)take(&c, noff * sizeof(uint32_t))))
				return corrupt(s, off);
			if (nv && (col->offsets[0] != 0 || col->offsets[nv] != ds))
				return corrupt(s, off);
			if (!(col->data = (uint8_t *)(uintptr_t)take(&c, ds)))
				return corrupt(s, off);
		} else {
			w = pq_value_width(col->type, col->type_length);
			if (w == 0 || !(col->values = (uint8_t *)(uintptr_t)take(&c, nv * w)))
				return corrupt(s, off);
		}
	}
	view->num_rows = (size_t)rows;
	view->borrowed = 1;
	return 0;
}

int zspill_read_all(zspill *s, pq_batch *dst, uint64_t **keys, size_t *nkeys, size_t *keys_cap,
                    void **scratch, size_t *scratch_cap)
{
	uint64_t off = 0;
	pq_batch view;
	int rc = 0;
	if (pq_batch_init(&view, dst->num_columns) < 0)
		return -1;
	view.borrowed = 1;
	while (rc == 0 && off < s->bytes) {
		uint64_t head[4];
		const uint64_t *ck;
		if (read_fully(s->fd, (uint8_t *)head, CHUNK_HEADER, off) < 0) {
			rc = SPILL_ERR(LOOM_EIO, "reading a Z-order spill file in %s: %s", s->budget->dir, strerror(errno));
			break;
		}
		if (head[0] != CHUNK_MAGIC || head[1] > MAX_CHUNK_BODY || head[1] > s->bytes - off - CHUNK_HEADER ||
		    head[3] != dst->num_columns || head[2] > head[1]) {
			rc = corrupt(s, off);
			break;
		}
		if ((rc = loom_array_grow(scratch, scratch_cap, (size_t)head[1] + 8, 1)) < 0)
			break;
		if (read_fully(s->fd, *scratch, (size_t)head[1], off + CHUNK_HEADER) < 0) {
			rc = SPILL_ERR(LOOM_EIO, "reading a Z-order spill file in %s: %s", s->budget->dir, strerror(errno));
			break;
		}
		if ((rc = parse_chunk(s, off, *scratch, (size_t)head[1], head[2], &view, &ck)) < 0)
			break;
		if ((rc = loom_array_grow((void **)keys, keys_cap, *nkeys + (size_t)head[2], sizeof(uint64_t))) < 0)
			break;
		memcpy(*keys + *nkeys, ck, (size_t)head[2] * sizeof(uint64_t));
		if ((rc = pq_batch_append_rows(dst, &view, 0, view.num_rows)) < 0)
			break;
		*nkeys += (size_t)head[2];
		off += CHUNK_HEADER + head[1];
	}
	loom_free(view.columns);
	return rc;
}
