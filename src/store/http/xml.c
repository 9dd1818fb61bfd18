/* store/http/xml.c - a path-and-text walk over expat's events. */
#include "store/http/xml.h"

#include <expat.h>
#include <string.h>

#include "util/error.h"

#define XML_MAX_DEPTH 32
#define XML_MAX_TEXT ((size_t)1 << 20)

typedef struct walk {
	XML_Parser parser;
	const char *what;
	xml_cb cb;
	void *ctx;
	loom_buf path;                 /* "a/b/c" */
	size_t ends[XML_MAX_DEPTH];    /* path length before each open element */
	int depth;
	loom_buf text;                 /* of the innermost open element */
	int rc;
} walk;

static void stop(walk *w, int rc)
{
	if (w->rc == 0)
		w->rc = rc;
	XML_StopParser(w->parser, XML_FALSE);
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
	walk *w = ud;
	const char *colon = strchr(name, ':');
	int rc;
	(void)attrs;
	if (w->rc)
		return;
	if (w->depth >= XML_MAX_DEPTH) {
		stop(w, loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_STORE, "%s: XML nested deeper than %d elements",
		                 w->what, XML_MAX_DEPTH));
		return;
	}
	w->ends[w->depth++] = w->path.size;
	if ((w->path.size && (rc = loom_buf_putc(&w->path, '/')) < 0) ||
	    (rc = loom_buf_puts(&w->path, colon ? colon + 1 : name)) < 0) {
		stop(w, rc);
		return;
	}
	loom_buf_clear(&w->text);
	if ((rc = w->cb(w->ctx, w->path.ptr, NULL, 0)) < 0)
		stop(w, rc);
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
	walk *w = ud;
	int rc;
	(void)name;
	if (w->rc || w->depth == 0)
		return;
	rc = w->cb(w->ctx, w->path.ptr, w->text.ptr ? w->text.ptr : "", w->text.size);
	loom_buf_clear(&w->text);
	w->path.size = w->ends[--w->depth];
	if (w->path.ptr)
		w->path.ptr[w->path.size] = '\0';
	if (rc < 0)
		stop(w, rc);
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	walk *w = ud;
	int rc;
	if (w->rc || len <= 0)
		return;
	if (w->text.size + (size_t)len > XML_MAX_TEXT) {
		stop(w, loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_STORE, "%s: XML text longer than %zu bytes",
		                 w->what, XML_MAX_TEXT));
		return;
	}
	if ((rc = loom_buf_put(&w->text, s, (size_t)len)) < 0)
		stop(w, rc);
}

static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal_subset)
{
	walk *w = ud;
	(void)name;
	(void)sysid;
	(void)pubid;
	(void)has_internal_subset;
	stop(w, loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_STORE,
	                 "%s: XML with a DOCTYPE declaration is refused", w->what));
}

int xml_walk(const char *data, size_t len, const char *what, xml_cb cb, void *ctx)
{
	walk w;
	enum XML_Status st;

	memset(&w, 0, sizeof(w));
	w.what = what;
	w.cb = cb;
	w.ctx = ctx;
	if (len > (size_t)INT32_MAX)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_STORE, "%s: XML of %zu bytes is too large",
		                what, len);
	if (!(w.parser = XML_ParserCreate("UTF-8")))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory for an XML parser");
	XML_SetUserData(w.parser, &w);
	XML_SetElementHandler(w.parser, on_start, on_end);
	XML_SetCharacterDataHandler(w.parser, on_text);
	XML_SetStartDoctypeDeclHandler(w.parser, on_doctype);
	XML_SetParamEntityParsing(w.parser, XML_PARAM_ENTITY_PARSING_NEVER);
	if (loom_buf_puts(&w.path, "") < 0) {
		XML_ParserFree(w.parser);
		return LOOM_ENOMEM;
	}
	st = XML_Parse(w.parser, data, (int)len, XML_TRUE);
	if (st != XML_STATUS_OK && w.rc == 0)
		w.rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_STORE, "%s: malformed XML at line %lu: %s", what,
		                (unsigned long)XML_GetCurrentLineNumber(w.parser),
		                XML_ErrorString(XML_GetErrorCode(w.parser)));
	XML_ParserFree(w.parser);
	loom_buf_dispose(&w.path);
	loom_buf_dispose(&w.text);
	return w.rc;
}

typedef struct find {
	const char *path;
	loom_buf *out;
	int found;
} find;

static int find_cb(void *ctx, const char *path, const char *text, size_t len)
{
	find *f = ctx;
	if (!text || strcmp(path, f->path) != 0)
		return 0;
	LOOM_TRY(loom_buf_put(f->out, text, len));
	f->found = 1;
	return LOOM_EUSER; /* found: stop the walk */
}

int xml_find_text(const char *data, size_t len, const char *path, loom_buf *out)
{
	find f = { path, out, 0 };
	loom_error saved;
	int had = loom_error_last() != NULL, rc;
	loom_err_copy(&saved);
	rc = xml_walk(data, len, "response", find_cb, &f);
	if (rc == LOOM_ENOMEM && !f.found)
		return rc;
	/* a malformed error body must not replace the error being reported */
	if (had)
		loom_err(saved.code, saved.klass, "%s", saved.message);
	else
		loom_error_clear();
	return f.found;
}
