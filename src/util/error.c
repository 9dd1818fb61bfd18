/* util/error.c - the thread-local error record. */
#include "util/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local loom_error last_error;
static _Thread_local int have_error;

LOOM_EXTERN(const loom_error *) loom_error_last(void)
{
	return have_error ? &last_error : NULL;
}

LOOM_EXTERN(void) loom_error_clear(void)
{
	have_error = 0;
	memset(&last_error, 0, sizeof(last_error));
}

LOOM_EXTERN(const char *) loom_error_code_name(loom_error_code code)
{
	switch (code) {
	case LOOM_OK: return "OK";
	case LOOM_ERROR: return "ERROR";
	case LOOM_ENOTFOUND: return "ENOTFOUND";
	case LOOM_EEXISTS: return "EEXISTS";
	case LOOM_ECONFLICT: return "ECONFLICT";
	case LOOM_EUNSUPPORTED: return "EUNSUPPORTED";
	case LOOM_ECORRUPT: return "ECORRUPT";
	case LOOM_ECANCELLED: return "ECANCELLED";
	case LOOM_EINVAL: return "EINVAL";
	case LOOM_ENOMEM: return "ENOMEM";
	case LOOM_EIO: return "EIO";
	case LOOM_EUSER: return "EUSER";
	case LOOM_EPERM: return "EPERM";
	case LOOM_ETRANSIENT: return "ETRANSIENT";
	default: return "UNKNOWN";
	}
}

LOOM_EXTERN(const char *) loom_error_class_name(loom_error_class klass)
{
	static const char *const names[] = { "none", "os", "store", "codec", "parquet", "delta",
		                                 "ops", "plan", "config", "invalid", "user" };
	if ((int)klass < 0 || (size_t)klass >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[klass];
}

LOOM_EXTERN(int) loom_error_set(loom_error_code code, loom_error_class klass, const char *message)
{
	return loom_err(code, klass, "%s", message ? message : "");
}

LOOM_EXTERN(int) loom_error_is_transient(loom_error_code code)
{
	return code == LOOM_ETRANSIENT;
}

static void set_message(int code, int klass, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void set_message(int code, int klass, const char *fmt, va_list ap)
{
	last_error.code = code;
	last_error.klass = klass;
	vsnprintf(last_error.message, sizeof(last_error.message), fmt, ap);
	have_error = 1;
}

int loom_err(int code, int klass, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_message(code, klass, fmt, ap);
	va_end(ap);
	return code;
}

int loom_err_from_errno(int errnum)
{
	switch (errnum) {
	case ENOENT:
	case ENOTDIR: return LOOM_ENOTFOUND;
	case EEXIST: return LOOM_EEXISTS;
	case ENOMEM: return LOOM_ENOMEM;
	case EINVAL: return LOOM_EINVAL;
	case EACCES:
	case EPERM: return LOOM_EPERM;
	default: return LOOM_EIO;
	}
}

int loom_err_os(int code, int errnum, const char *fmt, ...)
{
	char os_msg[128];
	va_list ap;
	size_t used;

	/* Read strerror before formatting: vsnprintf may touch errno. */
	snprintf(os_msg, sizeof(os_msg), "%s", strerror(errnum));
	va_start(ap, fmt);
	set_message(code, LOOM_ERRCLASS_OS, fmt, ap);
	va_end(ap);
	used = strlen(last_error.message);
	snprintf(last_error.message + used, sizeof(last_error.message) - used,
	         ": %s", os_msg);
	return code;
}

/* dst = a + b + c, cut to fit. */
static void append_truncated(char *dst, size_t cap, const char *a, const char *b,
                             const char *c)
{
	const char *parts[3] = { a, b, c };
	size_t used = 0, i;
	for (i = 0; i < 3; i++) {
		size_t n = strlen(parts[i]);
		if (n > cap - 1 - used)
			n = cap - 1 - used;
		memcpy(dst + used, parts[i], n);
		used += n;
	}
	dst[used] = '\0';
}

int loom_err_wrap(const char *fmt, ...)
{
	char prefix[LOOM_ERROR_MESSAGE_MAX];
	char old[LOOM_ERROR_MESSAGE_MAX];
	va_list ap;

	if (!have_error)
		return LOOM_ERROR;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, last_error.message, sizeof(old));
	append_truncated(last_error.message, sizeof(last_error.message), prefix, ": ", old);
	return last_error.code;
}

void loom_err_copy(loom_error *dst)
{
	if (have_error)
		*dst = last_error;
	else
		memset(dst, 0, sizeof(*dst));
}

void loom_err_restore(const loom_error *saved)
{
	if (saved->code < 0)
		loom_err(saved->code, saved->klass, "%s", saved->message);
	else
		loom_error_clear();
}

int loom_err_raise(const loom_error *e)
{
	/* a record copied after a failure whose error some cleanup cleared
	 * holds no code: raising it as it is would turn the failure into a
	 * success (a unit's lost output once went unnoticed this way) */
	if (e->code >= 0)
		return loom_err(LOOM_ERROR, e->klass, "%s",
		                e->message[0] ? e->message : "a step failed without recording why");
	return loom_err(e->code, e->klass, "%s", e->message);
}
