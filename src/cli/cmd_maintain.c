/* cli/cmd_maintain.c - `loom maintain`: run a maintenance plan from the
 * storage YAML (its maintenance: block, or a step of a plan file). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/observe.h"
#include "loom.h"
#include "loom/config.h"
#include "loom/plan.h"
#include "loom/auto.h"

static loom_runner *volatile running;

static void on_signal(int sig)
{
	(void)sig;
	if (running)
		loom_runner_cancel(running);   /* an atomic store: async-signal-safe */
}

static void maintain_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom maintain --config FILE [--plan FILE [--step NAME]] [options]\n"
	        "\n"
	        "Run table maintenance declared in a loom storage YAML: its maintenance:\n"
	        "block, or one step of a plan file (docs/plan-file.md).\n"
	        "\n"
	        "options:\n"
	        "  --config FILE       the storage: YAML (required)\n"
	        "  --plan FILE         a plan file with named steps\n"
	        "  --step NAME         the step to run (required when the plan has several)\n"
	        "  --policy skip|error|stop  tables missing from the config or without\n"
	        "                      _delta_log: skip them (default), fail them, or fail the\n"
	        "                      first and start no table after it\n"
	        "  --jobs N            tables maintained concurrently (default 1, 0 = CPUs)\n"
	        "  --explain           print what would run and exit; touches nothing\n"
	        "  --auto              each table of the maintenance block gets only what the\n"
	        "                      health policy recommends (loom advise): the block's auto:\n"
	        "                      policy, its vacuum / compact / z_order_by as the settings\n"
	        "                      (what maintenance: {auto: true} does without --auto)\n"
	        "  --budget-time T     a time budget (45m, 2h, 90s, 1h30m): no table or\n"
	        "                      operation starts after it; running compactions and\n"
	        "                      Z-orders stop at it and commit what they finished\n"
	        "  --budget-bytes S    a budget of bytes rewritten (200GiB): no table or\n"
	        "                      operation starts once spent\n"
	        "                      (under a budget tables run by benefit per byte)\n"
	        "  --commit-every S    under a budget, compactions and Z-orders commit each\n"
	        "                      S of finished work (default 1GiB)\n"
	        "  --json              machine-readable output (docs/report-schema.md)\n"
	        "  --metrics FILE      write Prometheus text metrics of the run and of each\n"
	        "                      table's health to FILE, atomically (node_exporter's\n"
	        "                      textfile collector; docs/observability.md)\n"
	        "  --log-format json   one JSON object per event (run, table, operation start\n"
	        "                      and end, retries, warnings, errors) to stderr\n"
	        "  --log-file FILE     append the JSON events to FILE instead of stderr\n"
	        "  --history URI       append the run's record to the history at URI (a\n"
	        "                      directory or an object-store prefix; loom history)\n"
	        "  --html FILE         write a self-contained HTML report of the run\n"
	        "\n"
	        "exit status: 0 all tables ok or skipped, 1 a table failed or the run could\n"
	        "not start, 2 usage or config error.\n");
}

typedef struct maintain_args {
	const char *config, *plan, *step;
	int policy, json, explain, automatic;
	size_t jobs;
	double budget_seconds;
	int64_t budget_bytes, commit_every;
	cli_observe observe;   /* --metrics, --log-format, --history, --html */
} maintain_args;

/* A duration as people write it: "45m", "2h", "90s", "1h30m", "1.5h". */
static int parse_duration(const char *s, double *seconds)
{
	double total = 0;
	const char *p = s;
	if (!*p)
		return -1;
	while (*p) {
		char *end;
		double v = strtod(p, &end);
		if (end == p || v < 0)
			return -1;
		switch (*end) {
		case 'h': v *= 3600; break;
		case 'm': v *= 60; break;
		case 's': break;
		default: return -1;
		}
		total += v;
		p = end + 1;
	}
	*seconds = total;
	return total > 0 ? 0 : -1;
}

static int parse_args(int argc, char **argv, maintain_args *a)
{
	int i;
	memset(a, 0, sizeof(*a));
	a->jobs = 1;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			maintain_usage(stdout);
			return 1;
		} else if (strcmp(arg, "--json") == 0) {
			a->json = 1;
		} else if (strcmp(arg, "--explain") == 0) {
			a->explain = 1;
		} else if (strcmp(arg, "--auto") == 0) {
			a->automatic = 1;
		} else if (strcmp(arg, "--config") == 0 || strcmp(arg, "--plan") == 0 ||
		           strcmp(arg, "--step") == 0 || strcmp(arg, "--jobs") == 0 ||
		           strcmp(arg, "--policy") == 0 || strcmp(arg, "--budget-time") == 0 ||
		           strcmp(arg, "--budget-bytes") == 0 || strcmp(arg, "--commit-every") == 0 ||
		           strcmp(arg, "--metrics") == 0 || strcmp(arg, "--log-format") == 0 ||
		           strcmp(arg, "--log-file") == 0 || strcmp(arg, "--history") == 0 ||
		           strcmp(arg, "--html") == 0) {
			if (!val) {
				fprintf(stderr, "loom maintain: %s needs a value\n", arg);
				return -1;
			}
			i++;
			if (strcmp(arg, "--metrics") == 0) {
				a->observe.metrics = val;
			} else if (strcmp(arg, "--history") == 0) {
				a->observe.history = val;
			} else if (strcmp(arg, "--html") == 0) {
				a->observe.html = val;
			} else if (strcmp(arg, "--log-file") == 0) {
				a->observe.log_file = val;
			} else if (strcmp(arg, "--log-format") == 0) {
				if (strcmp(val, "json") != 0 && strcmp(val, "text") != 0) {
					fprintf(stderr, "loom maintain: --log-format is json or text, not '%s'\n", val);
					return -1;
				}
				a->observe.log_json = strcmp(val, "json") == 0;
			} else if (strcmp(arg, "--budget-time") == 0) {
				if (parse_duration(val, &a->budget_seconds) < 0) {
					fprintf(stderr, "loom maintain: --budget-time takes a duration like 45m, "
					                "2h or 1h30m, not '%s'\n", val);
					return -1;
				}
			} else if (strcmp(arg, "--budget-bytes") == 0 || strcmp(arg, "--commit-every") == 0) {
				int64_t *dst = arg[2] == 'b' ? &a->budget_bytes : &a->commit_every;
				if (loom_size_parse(dst, val) < 0 || *dst <= 0) {
					fprintf(stderr, "loom maintain: %s takes a size like 200GiB, not '%s'\n", arg, val);
					return -1;
				}
			} else if (strcmp(arg, "--config") == 0) {
				a->config = val;
			} else if (strcmp(arg, "--plan") == 0) {
				a->plan = val;
			} else if (strcmp(arg, "--step") == 0) {
				a->step = val;
			} else if (strcmp(arg, "--policy") == 0) {
				if (strcmp(val, "skip") == 0)
					a->policy = LOOM_MISSING_SKIP;
				else if (strcmp(val, "error") == 0)
					a->policy = LOOM_MISSING_ERROR;
				else if (strcmp(val, "stop") == 0)
					a->policy = LOOM_MISSING_STOP;
				else {
					fprintf(stderr, "loom maintain: --policy is skip, error or stop, not '%s'\n", val);
					return -1;
				}
			} else {
				char *end;
				unsigned long n = strtoul(val, &end, 10);
				if (!*val || *end || n > 256 || val[0] == '-') {
					fprintf(stderr, "loom maintain: --jobs takes 0..256, not '%s'\n", val);
					return -1;
				}
				a->jobs = (size_t)n;
			}
		} else {
			fprintf(stderr, "loom maintain: unknown option '%s'\n", arg);
			return -1;
		}
	}
	if (!a->config) {
		fprintf(stderr, "loom maintain: --config is required\n");
		return -1;
	}
	if (a->automatic && a->plan) {
		fprintf(stderr, "loom maintain: --auto runs the config's maintenance block, not --plan\n");
		return -1;
	}
	if (a->observe.log_file && !a->observe.log_json) {
		fprintf(stderr, "loom maintain: --log-file needs --log-format json\n");
		return -1;
	}
	if (a->step && !a->plan) {
		fprintf(stderr, "loom maintain: --step needs --plan\n");
		return -1;
	}
	return 0;
}

static int print_and_free(char *s, FILE *out)
{
	fputs(s, out);
	if (s[0] && s[strlen(s) - 1] != '\n')
		fputc('\n', out);
	loom_string_free(s);
	return 0;
}

int cmd_maintain(int argc, char **argv)
{
	maintain_args a;
	loom_config *cfg = NULL;
	loom_plan *plan = NULL;
	loom_step *config_step = NULL;
	const loom_step *step = NULL;
	const loom_maintainer *engine = NULL;
	loom_runner *runner = NULL;
	loom_report *report = NULL;
	char *text = NULL;
	int rc, status = CLI_EXIT_USAGE;

	rc = parse_args(argc, argv, &a);
	if (rc != 0) {
		if (rc < 0)
			maintain_usage(stderr);
		return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	if (loom_config_load_file(&cfg, a.config) < 0) {
		cli_print_error("maintain");
		return CLI_EXIT_USAGE;
	}
	if (a.plan) {
		if (loom_plan_load_file(&plan, a.plan) < 0) {
			cli_print_error("maintain");
			goto out;
		}
		if (a.step) {
			step = loom_plan_step(plan, a.step);
		} else if (loom_plan_step_count(plan) == 1) {
			step = loom_plan_step_at(plan, 0);
		} else {
			size_t i;
			fprintf(stderr, "loom maintain: %s has %zu steps; choose one with --step:",
			        a.plan, loom_plan_step_count(plan));
			for (i = 0; i < loom_plan_step_count(plan); i++)
				fprintf(stderr, " %s", loom_step_name(loom_plan_step_at(plan, i)));
			fputc('\n', stderr);
			goto out;
		}
		if (!step) {
			cli_print_error("maintain");
			goto out;
		}
	} else if (a.automatic) {
		if (loom_step_auto_from_config(&config_step, cfg) < 0) {
			cli_print_error("maintain");
			goto out;
		}
		step = config_step;
	} else {
		if (loom_step_from_config(&config_step, cfg) < 0) {
			cli_print_error("maintain");
			goto out;
		}
		step = config_step;
	}

	/* Resolve first: a bad declaration is a usage/config error (2). The
	 * JSON rendering only when it is printed: over a lake its tree costs
	 * kilobytes a table, the text a line or two. */
	if (loom_step_explain(&text, step, NULL, cfg, a.explain && a.json) < 0) {
		cli_print_error("maintain");
		goto out;
	}
	if (a.explain) {
		print_and_free(text, stdout);
		status = CLI_EXIT_OK;
		goto out;
	}
	loom_string_free(text);

	if (loom_maintainer_native(&engine) < 0 || !engine) {
		cli_print_error("maintain");
		fprintf(stderr, "loom maintain: nothing was changed; the config and plan are valid "
		                "(see --explain for what would run)\n");
		status = CLI_EXIT_FAILED;
		goto out;
	}
	if (loom_runner_from_config(&runner, cfg, engine, a.policy) < 0 ||
	    loom_runner_set_jobs(runner, a.jobs) < 0 ||
	    loom_runner_set_budget(runner, a.budget_seconds, a.budget_bytes, a.commit_every) < 0) {
		cli_print_error("maintain");
		goto out;
	}
	if (cli_observe_begin(&a.observe, cfg) < 0)
		goto out;
	if ((a.observe.log || a.observe.metrics || a.observe.history || a.observe.html) &&
	    loom_runner_set_progress(runner, cli_observe_progress, &a.observe) < 0) {
		cli_print_error("maintain");
		goto out;
	}
	if (a.observe.log) {
		loom_spec_list *specs = NULL;
		size_t tables = 0;
		if (loom_step_resolve(&specs, step, NULL, cfg) == 0)
			tables = loom_spec_list_count(specs);
		loom_spec_list_free(specs);
		loom_event_log_run_start(a.observe.log, loom_step_name(step), tables);
	}
	running = runner;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = loom_runner_run(&report, runner, step, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	running = NULL;
	if (rc < 0) {
		cli_print_error("maintain");
		goto out;
	}
	if ((a.json ? loom_report_to_json(&text, report) : loom_report_to_text(&text, report)) < 0) {
		cli_print_error("maintain");
		status = CLI_EXIT_FAILED;
		goto out;
	}
	print_and_free(text, stdout);
	status = loom_report_has_errors(report) ? CLI_EXIT_FAILED : CLI_EXIT_OK;
	if (cli_observe_end(&a.observe, report) < 0)
		status = CLI_EXIT_FAILED;
out:
	loom_report_free(report);
	loom_runner_free(runner);
	cli_observe_free(&a.observe);
	loom_step_free(config_step);
	loom_plan_free(plan);
	loom_config_free(cfg);
	return status;
}
