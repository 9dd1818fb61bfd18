/* store/http/xml.h - reading the XML of object-store responses (libexpat):
 * ListObjectsV2 and List Blobs pages, DeleteObjects results, error bodies.
 *
 * The document is walked once. For each element the callback sees its
 * path from the root, element names joined by '/' with any namespace
 * prefix dropped ("ListBucketResult/Contents/Key"), once when it starts
 * (text NULL) and once when it ends, with the text directly inside it
 * (entities decoded, "" for none). A listing collects the fields of an
 * entry on their end events and emits the entry at the end of
 * ".../Contents":
 *
 *   static int on_xml(void *ctx, const char *path, const char *text, size_t len)
 *   {
 *       if (text && strcmp(path, "ListBucketResult/Contents/Key") == 0) ...
 *   }
 *
 * DOCTYPE declarations (and with them every entity trick) are refused;
 * nesting deeper than 32 elements and text longer than 1 MiB in one
 * element are LOOM_ECORRUPT. */
#ifndef LOOM_STORE_XML_H
#define LOOM_STORE_XML_H

#include <stddef.h>

#include "util/buf.h"

/* Return 0 to go on; a negative code stops the walk and is returned. */
typedef int (*xml_cb)(void *ctx, const char *path, const char *text, size_t len);

/* Walk `len` bytes of XML. LOOM_ECORRUPT naming `what`, the line and the
 * parser's reason for malformed XML. */
int xml_walk(const char *data, size_t len, const char *what, xml_cb cb, void *ctx);

/* The text of the first element at `path` ("Error/Code"), appended to
 * `out`: 1 when found, 0 when not (or the XML is malformed: error bodies
 * are best effort), LOOM_ENOMEM. */
int xml_find_text(const char *data, size_t len, const char *path, loom_buf *out);

#endif
