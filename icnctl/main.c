// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl - ICN Switch 1.0 fabric management
 *
 * Grammar: icnctl [OPTIONS] OBJECT COMMAND [ARGS], as devlink and rdma.
 * Objects and commands are looked up in tables (one file per object) and
 * may be abbreviated to a unique prefix.  Exit status: 0 success,
 * 1 failure (kernel error, permission, driver missing), 2 usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

static int cmd_help(struct icn_ctx *ctx);

static const struct icnctl_cmd objects[] = {
	{ "port", cmd_port, NULL },
	{ "switch", cmd_switch, NULL },
	{ "help", cmd_help, NULL },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: icnctl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"where  OBJECT := { port | switch }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -V[ersion] | -h[elp] }\n"
		"\n");
	print_usage(f, port_cmds);
	print_usage(f, switch_cmds);
}

static int cmd_help(struct icn_ctx *ctx)
{
	(void)ctx;
	usage(stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct icn_ctx ctx;
	int opt;

	memset(&ctx, 0, sizeof(ctx));
	while ((opt = getopt_long(argc, argv, "+jpVh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			ctx.json = true;
			break;
		case 'p':
			ctx.pretty = true;
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
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	ctx.argc = argc - optind;
	ctx.argv = argv + optind;
	out_init(ctx.json, ctx.pretty, stdout);
	return dispatch(&ctx, "object", objects, NULL);
}
