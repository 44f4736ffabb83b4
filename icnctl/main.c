// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl - ICN Switch 1.0 fabric management
 *
 * Grammar: icnctl [OPTIONS] OBJECT COMMAND [ARGS], as devlink and rdma.
 * Objects and commands are looked up in tables (one file per object) and
 * may be abbreviated to a unique prefix.  Exit status: 0 success,
 * 1 failure (kernel error, permission, driver missing), 2 usage error.
 * With -b FILE each line of FILE is one "OBJECT COMMAND [ARGS]"; the
 * first failing line stops the batch and is named by its number.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

static int cmd_help(struct icn_ctx *ctx);
static int cmd_version(struct icn_ctx *ctx);

static const struct icnctl_cmd objects[] = {
	{ "switch", cmd_switch, NULL },
	{ "port", cmd_port, NULL },
	{ "card", cmd_card, NULL },
	{ "stats", cmd_stats, NULL },
	{ "topology", cmd_topology, NULL },
	{ "route", cmd_route, NULL },
	{ "partition", cmd_partition, NULL },
	{ "monitor", cmd_monitor, NULL },
	{ "version", cmd_version, NULL },
	{ "help", cmd_help, NULL },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: icnctl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       icnctl [ OPTIONS ] -b FILE\n"
		"where  OBJECT := { switch | port | card | stats | topology | route |\n"
		"                   partition | monitor | version }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -s[tatistics] | -i[nterval] SECS |\n"
		"                    -b[atch] FILE | -V[ersion] | -h[elp] }\n"
		"\n");
	print_usage(f, switch_cmds);
	print_usage(f, port_cmds);
	print_usage(f, card_cmds);
	print_usage(f, stats_cmds);
	print_usage(f, topology_cmds);
	print_usage(f, route_cmds);
	print_usage(f, partition_cmds);
	print_usage(f, monitor_cmds);
	fprintf(f, "       icnctl version\n");
}

static int cmd_help(struct icn_ctx *ctx)
{
	(void)ctx;
	usage(stdout);
	return EXIT_OK;
}

/*
 * The loaded m890.ko's MODULE_VERSION (sysfs, as modinfo shows it), in
 * @buf; false when the module is not loaded or has no version.
 */
static bool kernel_version(char *buf, size_t size)
{
	FILE *f = fopen("/sys/module/m890/version", "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] != '\0';
}

static int cmd_version(struct icn_ctx *ctx)
{
	char kver[64];
	static const char *const words[] = { "help" };

	if (ctx->argc == 1 && match_word(ctx->argv[0], words, 1) == 0) {
		printf("Usage:\n       icnctl version\n");
		return EXIT_OK;
	}
	if (ctx->argc) {
		fprintf(stderr, "icnctl: version takes no argument\n");
		return EXIT_USAGE;
	}
	out_obj_start();
	out_str("icnctl", "icnctl", ICNCTL_VERSION);
	out_str("family", "family", ICN_FAMILY_NAME);
	out_u32("family_version", "family-version", ICN_FAMILY_VERSION);
	out_str("kernel", "kernel",
		kernel_version(kver, sizeof(kver)) ? kver : "not-loaded");
	out_obj_end();
	return out_finish() ? EXIT_FAIL : EXIT_OK;
}

static int run_words(struct icn_ctx *ctx, int argc, char **argv)
{
	ctx->argc = argc;
	ctx->argv = argv;
	out_init(ctx->json, ctx->pretty, stdout);
	return dispatch(ctx, "object", objects, NULL);
}

/* Run each line of @path ("-" for stdin); stop at the first failure. */
static int run_batch(struct icn_ctx *ctx, const char *path)
{
	char line[4096], *words[64];
	int lineno = 0, n, rc = EXIT_OK;
	FILE *f;

	f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		fprintf(stderr, "icnctl: cannot open batch file %s: %s\n", path,
			strerror(errno));
		return EXIT_FAIL;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			fprintf(stderr, "icnctl: %s: line %d: line too long\n",
				path, lineno);
			rc = EXIT_USAGE;
			break;
		}
		n = split_words(line, words, 64);
		if (n < 0) {
			fprintf(stderr, "icnctl: %s: line %d: unclosed quote or too many words\n",
				path, lineno);
			rc = EXIT_USAGE;
			break;
		}
		if (n == 0)
			continue;
		rc = run_words(ctx, n, words);
		if (rc) {
			fprintf(stderr, "icnctl: %s: line %d: command failed: %s\n",
				path, lineno, words[0]);
			break;
		}
	}
	/* A directory or an I/O error ends fgets() as end of file would. */
	if (rc == EXIT_OK && ferror(f)) {
		fprintf(stderr, "icnctl: cannot read batch file %s: %s\n", path,
			strerror(errno));
		rc = EXIT_FAIL;
	}
	if (f != stdin)
		fclose(f);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "statistics", no_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "interval", required_argument, NULL, 'i' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *batch = NULL;
	struct icn_ctx ctx;
	int opt;

	memset(&ctx, 0, sizeof(ctx));
	while ((opt = getopt_long(argc, argv, "+jpsb:i:Vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			ctx.json = true;
			break;
		case 'p':
			ctx.pretty = true;
			break;
		case 's':
			ctx.stats = true;
			break;
		case 'b':
			batch = optarg;
			break;
		case 'i':
			if (parse_u32(optarg, 86400, &ctx.interval) || !ctx.interval) {
				fprintf(stderr, "icnctl: -i needs an interval of 1..86400 seconds\n");
				return EXIT_USAGE;
			}
			break;
		case 'V':
			printf("icnctl %s (ICN netlink family \"%s\" version %d)\n",
			       ICNCTL_VERSION, ICN_FAMILY_NAME,
			       ICN_FAMILY_VERSION);
			return EXIT_OK;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (batch) {
		if (optind < argc) {
			fprintf(stderr, "icnctl: -b takes no command on the command line\n");
			return EXIT_USAGE;
		}
		return run_batch(&ctx, batch);
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return run_words(&ctx, argc - optind, argv + optind);
}
