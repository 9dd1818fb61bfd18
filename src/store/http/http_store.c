/* store/http/http_store.c - the parts every HTTP object store shares (see
 * http_store.h). */
#include "store/http/http_store.h"
#include "util/error.h"

void http_store_init(http_store *h)
{
	store_counters_init(&h->counters);
}

int http_store_connect(http_store *h, const store_config *cfg, const http_client_labels *labels)
{
	http_client_opts o;
	LOOM_TRY(http_client_opts_from_config(&o, cfg));
	o.target_label = labels->target;
	o.key_label = labels->key;
	o.secrets = &h->secrets;
	o.counters = &h->counters;
	LOOM_TRY(http_client_new(&h->http, &o));
	if (labels->token_target) {
		o.target_label = labels->token_target;
		o.key_label = NULL;
		LOOM_TRY(http_client_new(&h->token_http, &o));
	}
	h->retry = o.retry;
	return 0;
}

void http_store_dispose(http_store *h)
{
	http_client_free(h->http);
	http_client_free(h->token_http);
	h->http = h->token_http = NULL;
	loom_secrets_dispose(&h->secrets);
}

int http_store_open_failed(http_store *h, void (*free_store)(loom_store *), int rc)
{
	if (rc < 0)
		loom_secrets_mask_error(&h->secrets);
	free_store(&h->base);
	return rc;
}

static int http_store_stats(loom_store *st, loom_store_stats *out)
{
	store_counters_read(&((http_store *)st)->counters, out);
	return 0;
}

void http_store_methods(http_store *h, const loom_store *methods, const char *name,
                        const char *root)
{
	h->base = *methods;
	h->base.version = LOOM_STORE_VERSION;
	h->base.name = name;
	h->base.caps = LOOM_STORE_CAP_ATOMIC_PUT_IF_ABSENT | LOOM_STORE_CAP_RANGED_READ |
	               LOOM_STORE_CAP_REQUEST_READS;
	h->base.remove_empty_dir = NULL; /* no directories in an object store */
	h->base.stats = http_store_stats;
	h->base.root = root;
}
