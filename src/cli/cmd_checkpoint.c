/* cli/cmd_checkpoint.c - `loom checkpoint URI [--version N] [--json]` and
 * `loom cleanup-logs URI [--no-dry-run] [--retention-hours N] [--force]
 * [--json]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "loom.h"
#include "loom/metrics.h"
#include "loom/checkpoint.h"
#include "loom/ops.h"

static void checkpoint_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom checkpoint TABLE [options]\n\n"
	        "Write a classic checkpoint (_delta_log/<v>.checkpoint.parquet) of the table and\n"
	        "update _delta_log/_last_checkpoint. Nothing is written when a checkpoint of that\n"
	        "version already exists.\n\n"
	        "  --config FILE the storage YAML naming TABLE (then TABLE may be raw.events)\n"
	        "  --version N   checkpoint version N (default: the latest)\n"
	        "  --json        machine-readable output\n");
}

static void cleanup_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom cleanup-logs TABLE [options]\n\n"
	        "Delete expired _delta_log files: commits, .crc files, checkpoints and compaction\n"
	        "files older than the newest checkpoint that is itself at or before the newest\n"
	        "commit older than the cutoff (now - delta.logRetentionDuration, default 30 days,\n"
	        "truncated to midnight UTC as Spark does). Dry run by default.\n\n"
	        "  --config FILE         the storage YAML naming TABLE (then TABLE may be raw.events)\n"
	        "  --dry-run             list what would be deleted (the default)\n"
	        "  --no-dry-run          delete the files\n"
	        "  --retention-hours N   use N hours instead of delta.logRetentionDuration\n"
	        "  --force               run even when delta.enableExpiredLogCleanup=false\n"
	        "  --json                machine-readable output\n");
}

static int parse_int(const char *cmd, const char *opt, const char *s, int64_t *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || v < 0) {
		fprintf(stderr, "loom %s: %s needs a whole number >= 0, got '%s'\n", cmd, opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

int cmd_checkpoint(int argc, char **argv)
{
	loom_checkpoint_opts opts = LOOM_CHECKPOINT_OPTS_INIT;
	loom_op_result r;
	const char *uri = NULL, *config = NULL;
	cli_table table;
	int json = 0, i, rc;
	int64_t version;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			checkpoint_usage(stdout);
			return CLI_EXIT_OK;
		} else if (strcmp(a, "--version") == 0 && i + 1 < argc) {
			if (parse_int("checkpoint", a, argv[++i], &opts.table_version) < 0)
				return CLI_EXIT_USAGE;
		} else if (strcmp(a, "--config") == 0 && i + 1 < argc) {
			config = argv[++i];
		} else if (strcmp(a, "--json") == 0) {
			json = 1;
		} else if (a[0] == '-') {
			fprintf(stderr, "loom checkpoint: unknown option '%s'\n", a);
			checkpoint_usage(stderr);
			return CLI_EXIT_USAGE;
		} else if (!uri) {
			uri = a;
		} else {
			fprintf(stderr, "loom checkpoint: one table at a time (got '%s' and '%s')\n", uri, a);
			return CLI_EXIT_USAGE;
		}
	}
	if (!uri) {
		checkpoint_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if ((rc = cli_table_resolve(&table, "checkpoint", uri, config)) != 0)
		return rc;
	uri = table.shown;
	memset(&r, 0, sizeof(r));
	rc = loom_checkpoint(&r, table.uri, &opts, table.loc);
	if (rc < 0) {
		cli_print_error("checkpoint");
		loom_op_result_clear(&r);
		cli_table_release(&table);
		return CLI_EXIT_FAILED;
	}
	version = loom_op_result_metric(&r, LOOM_METRIC_VERSION, -1);
	if (json) {
		printf("{\"table\":");
		cli_print_json_string(uri);
		printf(",\"version\":%lld,\"created\":%s,\"path\":\"_delta_log/%020lld.checkpoint.parquet\","
		       "\"num_actions\":%lld,\"size_in_bytes\":%lld,\"num_add_files\":%lld,"
		       "\"num_remove_files\":%lld,\"num_expired_tombstones\":%lld,\"v2\":%s,"
		       "\"last_checkpoint_updated\":%s}\n",
		       (long long)version, loom_op_result_metric(&r, "created", 0) ? "true" : "false",
		       (long long)version, (long long)loom_op_result_metric(&r, "numActions", 0),
		       (long long)loom_op_result_metric(&r, "sizeInBytes", 0),
		       (long long)loom_op_result_metric(&r, "numAddFiles", 0),
		       (long long)loom_op_result_metric(&r, "numRemoveFiles", 0),
		       (long long)loom_op_result_metric(&r, "numExpiredTombstones", 0),
		       loom_op_result_metric(&r, "v2", 0) ? "true" : "false",
		       loom_op_result_metric(&r, "lastCheckpointUpdated", 0) ? "true" : "false");
	} else if (!loom_op_result_metric(&r, "created", 0)) {
		printf("%s: a checkpoint of version %lld already exists; nothing written\n", uri,
		       (long long)version);
	} else {
		char size[32];
		loom_format_size(loom_op_result_metric(&r, "sizeInBytes", 0), size, sizeof(size));
		printf("%s: wrote _delta_log/%020lld.checkpoint.parquet (%s%s): %lld actions, %lld files, "
		       "%lld tombstones kept, %lld expired dropped\n",
		       uri, (long long)version, size, loom_op_result_metric(&r, "v2", 0) ? ", V2" : "",
		       (long long)loom_op_result_metric(&r, "numActions", 0),
		       (long long)loom_op_result_metric(&r, "numAddFiles", 0),
		       (long long)loom_op_result_metric(&r, "numRemoveFiles", 0),
		       (long long)loom_op_result_metric(&r, "numExpiredTombstones", 0));
	}
	loom_op_result_clear(&r);
	cli_table_release(&table);
	return CLI_EXIT_OK;
}

int cmd_cleanup_logs(int argc, char **argv)
{
	loom_cleanup_logs_opts opts = LOOM_CLEANUP_LOGS_OPTS_INIT;
	loom_op_result r;
	const char *uri = NULL, *config = NULL;
	cli_table table;
	int json = 0, i, rc;
	size_t k;
	int64_t ckpt;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			cleanup_usage(stdout);
			return CLI_EXIT_OK;
		} else if (strcmp(a, "--retention-hours") == 0 && i + 1 < argc) {
			if (parse_int("cleanup-logs", a, argv[++i], &opts.retention_hours) < 0)
				return CLI_EXIT_USAGE;
		} else if (strcmp(a, "--dry-run") == 0) {
			opts.dry_run = 1;
		} else if (strcmp(a, "--no-dry-run") == 0) {
			opts.dry_run = 0;
		} else if (strcmp(a, "--force") == 0) {
			opts.force = 1;
		} else if (strcmp(a, "--config") == 0 && i + 1 < argc) {
			config = argv[++i];
		} else if (strcmp(a, "--json") == 0) {
			json = 1;
		} else if (a[0] == '-') {
			fprintf(stderr, "loom cleanup-logs: unknown option '%s'\n", a);
			cleanup_usage(stderr);
			return CLI_EXIT_USAGE;
		} else if (!uri) {
			uri = a;
		} else {
			fprintf(stderr, "loom cleanup-logs: one table at a time (got '%s' and '%s')\n", uri, a);
			return CLI_EXIT_USAGE;
		}
	}
	if (!uri) {
		cleanup_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if ((rc = cli_table_resolve(&table, "cleanup-logs", uri, config)) != 0)
		return rc;
	uri = table.shown;
	memset(&r, 0, sizeof(r));
	rc = loom_cleanup_logs(&r, table.uri, &opts, table.loc);
	if (rc < 0) {
		cli_print_error("cleanup-logs");
		loom_op_result_clear(&r);
		cli_table_release(&table);
		return CLI_EXIT_FAILED;
	}
	ckpt = loom_op_result_metric(&r, "checkpointVersion", -1);
	if (json) {
		printf("{\"table\":");
		cli_print_json_string(uri);
		printf(",\"dry_run\":%s,\"checkpoint_version\":%lld,\"cutoff_ms\":%lld,\"num_files\":%zu,"
		       "\"bytes\":%lld,\"files\":[",
		       r.dry_run ? "true" : "false", (long long)ckpt,
		       (long long)loom_op_result_metric(&r, "cutoffMs", 0), r.n_files_deleted,
		       (long long)loom_op_result_metric(&r, LOOM_METRIC_SIZE_OF_DATA_TO_DELETE, 0));
		for (k = 0; k < r.n_files_deleted; k++) {
			if (k)
				putchar(',');
			cli_print_json_string(r.files_deleted[k]);
		}
		printf("]}\n");
	} else {
		char size[32];
		loom_format_size(loom_op_result_metric(&r, LOOM_METRIC_SIZE_OF_DATA_TO_DELETE, 0), size, sizeof(size));
		for (k = 0; k < r.n_files_deleted; k++)
			printf("%s %s\n", r.dry_run ? "would delete" : "deleted", r.files_deleted[k]);
		if (ckpt < 0)
			printf("%s: no checkpoint at or before the newest commit older than the cutoff; "
			       "nothing to delete\n", uri);
		else if (r.dry_run)
			printf("%s: keeping checkpoint %lld; %zu log files (%s) would be deleted; run with "
			       "--no-dry-run to delete them\n", uri, (long long)ckpt, r.n_files_deleted, size);
		else
			printf("%s: keeping checkpoint %lld; deleted %zu log files (%s)\n", uri,
			       (long long)ckpt, r.n_files_deleted, size);
	}
	loom_op_result_clear(&r);
	cli_table_release(&table);
	return CLI_EXIT_OK;
}
