/* cli/cmd_dist.c - OPTIMIZE / Z-order in three steps for job runners
 * (Kubernetes jobs, Airflow or Prefect tasks, Dask; loom/distributed.h):
 *
 *   loom compact TABLE --plan-out PLAN [--units N]      (cmd_compact.c)
 *   loom zorder TABLE --columns a,b --plan-out PLAN     (cmd_zorder.c)
 *   loom execute-unit PLAN N --out RESULT [--threads N]
 *   loom commit PLAN RESULT... [--json]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "loom.h"
#include "loom/distributed.h"

/* The whole file as a NUL-terminated string (malloc), or NULL after
 * printing why. */
static char *read_text(const char *verb, const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	if (!f) {
		fprintf(stderr, "loom %s: cannot open '%s': %s\n", verb, path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (cap - len < 65536) {
			char *nb = realloc(buf, cap ? cap * 2 : 131072);
			if (!nb) {
				fprintf(stderr, "loom %s: out of memory reading '%s'\n", verb, path);
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap = cap ? cap * 2 : 131072;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "loom %s: cannot read '%s'\n", verb, path);
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[len] = 0;
	return buf;
}

/* Write text to path through a temp file and rename, so a reader never
 * sees half a file (a killed writer leaves only the temp). */
static int write_text(const char *verb, const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;
	size_t len = strlen(text);
	snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
	if (!(f = fopen(tmp, "wb")) || fwrite(text, 1, len, f) != len || fputc('\n', f) == EOF ||
	    fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "loom %s: cannot write '%s': %s\n", verb, path, strerror(errno));
		remove(tmp);
		return CLI_EXIT_FAILED;
	}
	return CLI_EXIT_OK;
}

int cli_write_plan(const char *verb, const char *shown, const char *path, const char *plan, int json)
{
	size_t units = 0;
	int rc = write_text(verb, path, plan);
	if (rc != CLI_EXIT_OK)
		return rc;
	loom_dist_unit_count(&units, plan);
	if (json) {
		printf("{\"table\":");
		cli_print_json_string(shown);
		printf(",\"plan\":");
		cli_print_json_string(path);
		printf(",\"units\":%zu}\n", units);
	} else {
		printf("%s: plan of %zu unit%s written to %s\n", shown, units, units == 1 ? "" : "s", path);
	}
	return CLI_EXIT_OK;
}

static int parse_count(const char *verb, const char *what, const char *s, size_t *out)
{
	char *end;
	unsigned long long v;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-') {
		fprintf(stderr, "loom %s: %s needs a whole number, got '%s'\n", verb, what, s);
		return -1;
	}
	*out = (size_t)v;
	return 0;
}

int cli_parse_units(const char *verb, const char *s, size_t *out)
{
	return parse_count(verb, "--units", s, out) < 0 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

static void execute_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom execute-unit PLAN N --out RESULT [--threads N]\n\n"
	        "Execute unit N (0-based) of a plan written by `loom compact --plan-out` or\n"
	        "`loom zorder --plan-out`: read its input files at the plan's version, write\n"
	        "new files under fresh names, and write the result (files to add and remove,\n"
	        "metrics) to RESULT. Commits nothing; run it anywhere, retry it freely: a\n"
	        "lost or repeated unit leaves only unreferenced files, which vacuum removes.\n"
	        "Storage credentials come from the environment.\n\n"
	        "  --out FILE       where the result goes (required)\n"
	        "  --threads N      worker threads (default: one per CPU)\n");
}

int cmd_execute_unit(int argc, char **argv)
{
	const char *plan_path = NULL, *unit_arg = NULL, *out_path = NULL;
	size_t unit = 0, threads = 0;
	char *plan, *result = NULL;
	loom_cancel *cancel;
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			execute_usage(stdout);
			return CLI_EXIT_OK;
		} else if (strcmp(a, "--out") == 0 && i + 1 < argc) {
			out_path = argv[++i];
		} else if (strcmp(a, "--threads") == 0 && i + 1 < argc) {
			if (parse_count("execute-unit", "--threads", argv[++i], &threads) < 0)
				return CLI_EXIT_USAGE;
		} else if (a[0] == '-') {
			fprintf(stderr, "loom execute-unit: unknown option '%s'\n", a);
			execute_usage(stderr);
			return CLI_EXIT_USAGE;
		} else if (!plan_path) {
			plan_path = a;
		} else if (!unit_arg) {
			unit_arg = a;
		} else {
			fprintf(stderr, "loom execute-unit: unexpected argument '%s'\n", a);
			return CLI_EXIT_USAGE;
		}
	}
	if (!plan_path || !unit_arg || !out_path) {
		execute_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (parse_count("execute-unit", "N", unit_arg, &unit) < 0)
		return CLI_EXIT_USAGE;
	if (!(plan = read_text("execute-unit", plan_path)))
		return CLI_EXIT_FAILED;
	cancel = cli_cancel_begin();
	rc = loom_dist_execute_unit(&result, plan, unit, NULL, threads, cancel);
	cli_cancel_end(cancel);
	free(plan);
	if (rc < 0) {
		cli_print_error("execute-unit");
		return rc == LOOM_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
	}
	/* Test hook: a worker that dies after writing its files but before
	 * handing in its result (tests/scripts/dist_plan_units.sh kills it
	 * here); the files stay, referenced by no version, for vacuum. */
	if (getenv("LOOM_TEST_PAUSE_BEFORE_RESULT")) {
		fprintf(stderr, "loom execute-unit: unit %zu written, pausing before the result\n", unit);
		sleep((unsigned)atoi(getenv("LOOM_TEST_PAUSE_BEFORE_RESULT")));
	}
	rc = write_text("execute-unit", out_path, result);
	loom_string_free(result);
	return rc;
}

static void commit_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom commit PLAN RESULT... [--json]\n\n"
	        "Commit the results of a plan's units (from `loom execute-unit`) in one\n"
	        "commit, checked for conflicts against the version the plan read: if a\n"
	        "concurrent commit removed an input file, the commit fails naming that\n"
	        "version and the results' files are deleted. Any subset of the units may be\n"
	        "committed (each Z-order partition's units together); one result per unit.\n\n"
	        "  --json           machine-readable output\n");
}

int cmd_commit(int argc, char **argv)
{
	const char *plan_path = NULL;
	char **texts = calloc((size_t)argc + 1, sizeof(char *));
	char *plan = NULL;
	size_t n = 0, k;
	loom_op_result result = LOOM_OP_RESULT_INIT;
	int i, json = 0, rc = CLI_EXIT_USAGE;

	if (!texts) {
		fprintf(stderr, "loom commit: out of memory\n");
		return CLI_EXIT_FAILED;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			commit_usage(stdout);
			rc = CLI_EXIT_OK;
			goto done;
		} else if (strcmp(a, "--json") == 0) {
			json = 1;
		} else if (a[0] == '-') {
			fprintf(stderr, "loom commit: unknown option '%s'\n", a);
			commit_usage(stderr);
			goto done;
		} else if (!plan_path) {
			plan_path = a;
		} else if (!(texts[n++] = read_text("commit", a))) {
			rc = CLI_EXIT_FAILED;
			goto done;
		}
	}
	if (!plan_path) {
		commit_usage(stderr);
		goto done;
	}
	if (!(plan = read_text("commit", plan_path))) {
		rc = CLI_EXIT_FAILED;
		goto done;
	}
	rc = loom_dist_commit(&result, plan, (const char *const *)texts, n, NULL);
	if (rc < 0) {
		cli_print_error("commit");
		rc = rc == LOOM_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
		goto done;
	}
	if (json)
		cli_print_optimize_json(plan_path, &result);
	else
		cli_print_result_human("commit", plan_path, &result);
	rc = CLI_EXIT_OK;
done:
	for (k = 0; k < n; k++)
		free(texts[k]);
	free(texts);
	free(plan);
	loom_op_result_free(&result);
	return rc;
}
