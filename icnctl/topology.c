// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl topology
 *
 * "topology show" prints the cabling: one line per port with a card
 * (port, fabric id, local accel node, oper state).  "topology show dot"
 * (or -d) prints it as a Graphviz graph.  "topology check FILE" compares
 * the cabling with an expected-cabling file and exits 1 on any mismatch,
 * naming each one.  The file has one line per cabled port:
 *
 *	port PORT fabric-id ID
 *
 * Blank lines and '#' comments are ignored; ports not listed must have no
 * card.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

static int read_ports(struct port_list **plp)
{
	struct port_list *pl = calloc(1, sizeof(*pl));
	int rc;

	if (!pl) {
		fprintf(stderr, "icnctl: out of memory\n");
		return EXIT_FAIL;
	}
	rc = port_list_get(pl, -1);
	if (rc) {
		free(pl);
		return rc;
	}
	*plp = pl;
	return EXIT_OK;
}

static void print_dot(const struct port_list *pl)
{
	printf("graph icn {\n");
	printf("\t\"switch\" [shape=box, label=\"ICN switch\\n%d ports\"];\n", pl->n);
	for (int i = 0; i < pl->n; i++) {
		const struct port_info *p = &pl->ports[i];

		if (!p->present)
			continue;
		printf("\t\"card%u\" [label=\"%s\\nfabric-id %u\"];\n", p->fabric_id,
		       p->dev[0] ? p->dev : "remote card", p->fabric_id);
		printf("\t\"switch\" -- \"card%u\" [label=\"port %u\"%s];\n",
		       p->fabric_id, p->index,
		       p->oper == ICN_PORT_STATE_UP ? "" : ", style=dashed");
	}
	printf("}\n");
}

static int topology_show(struct icn_ctx *ctx)
{
	static const char *const words[] = { "dot", "-d", "text" };
	struct port_list *pl;
	bool dot = false;
	int rc;

	for (int i = 0; i < ctx->argc; i++) {
		int m = match_word(ctx->argv[i], words, 3);

		if (m < 0) {
			fprintf(stderr, "icnctl: topology show: unknown argument \"%s\"; use dot\n",
				ctx->argv[i]);
			return EXIT_USAGE;
		}
		dot = m != 2;
	}
	if (dot && ctx->json) {
		fprintf(stderr, "icnctl: topology show: dot and -j exclude each other\n");
		return EXIT_USAGE;
	}
	rc = read_ports(&pl);
	if (rc)
		return rc;
	if (dot) {
		print_dot(pl);
		rc = fflush(stdout) ? EXIT_FAIL : EXIT_OK;
	} else {
		for (int i = 0; i < pl->n; i++) {
			const struct port_info *p = &pl->ports[i];

			if (!p->present)
				continue;
			out_obj_start();
			out_u32("port", "port", p->index);
			out_u32("fabric_id", "fabric-id", p->fabric_id);
			out_str("card", "card", p->dev[0] ? p->dev : "-");
			out_str("oper", "oper", port_state_name(p->oper));
			out_obj_end();
		}
		rc = out_finish() ? EXIT_FAIL : EXIT_OK;
	}
	free(pl);
	return rc;
}

/* Expected fabric id per port from @path, -1 for "no card"; exit code. */
static int read_expected(const char *path, int64_t *want, int nports)
{
	static const char *const kw_port[] = { "port" };
	static const char *const kw_fid[] = { "fabric-id" };
	char line[512], *w[8];
	uint32_t port, fid;
	int lineno = 0, n;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "icnctl: topology check: cannot open %s: %s\n",
			path, strerror(errno));
		return EXIT_FAIL;
	}
	for (int i = 0; i < nports; i++)
		want[i] = -1;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		n = split_words(line, w, 8);
		if (n == 0)
			continue;
		if (n != 4 || match_word(w[0], kw_port, 1) < 0 ||
		    match_word(w[2], kw_fid, 1) < 0 ||
		    parse_u32(w[1], (uint32_t)nports - 1, &port) ||
		    parse_u32(w[3], 63, &fid)) {
			fprintf(stderr, "icnctl: %s: line %d: expected \"port PORT fabric-id ID\" with PORT < %d and ID < 64\n",
				path, lineno, nports);
			fclose(f);
			return EXIT_USAGE;
		}
		if (want[port] >= 0) {
			fprintf(stderr, "icnctl: %s: line %d: port %u listed twice\n",
				path, lineno, port);
			fclose(f);
			return EXIT_USAGE;
		}
		want[port] = fid;
	}
	fclose(f);
	return EXIT_OK;
}

static int topology_check(struct icn_ctx *ctx)
{
	int64_t want[ICN_MAX_PORTS];
	struct port_list *pl;
	int rc, bad = 0;

	if (ctx->argc != 1) {
		fprintf(stderr, "icnctl: usage: icnctl topology check FILE\n");
		return EXIT_USAGE;
	}
	rc = read_ports(&pl);
	if (rc)
		return rc;
	rc = read_expected(ctx->argv[0], want, pl->n);
	if (rc) {
		free(pl);
		return rc;
	}
	for (int i = 0; i < pl->n; i++) {
		const struct port_info *p = &pl->ports[i];
		int64_t have = p->present ? (int64_t)p->fabric_id : -1;
		char w[24] = "none", h[24] = "none";
		bool match = have == want[p->index];

		if (want[p->index] >= 0)
			snprintf(w, sizeof(w), "%lld", (long long)want[p->index]);
		if (have >= 0)
			snprintf(h, sizeof(h), "%lld", (long long)have);
		if (!match) {
			bad++;
			if (!ctx->json)
				printf("port %u: expected fabric-id %s, found %s\n",
				       p->index, w, h);
		}
		if (ctx->json && (!match || have >= 0)) {
			out_obj_start();
			out_u32("port", NULL, p->index);
			out_str("expected", NULL, w);
			out_str("found", NULL, h);
			out_bool("match", NULL, match);
			out_obj_end();
		}
	}
	if (!ctx->json)
		printf("topology %s: %d mismatch%s\n", bad ? "differs" : "matches",
		       bad, bad == 1 ? "" : "es");
	free(pl);
	if (out_finish())
		return EXIT_FAIL;
	return bad ? EXIT_FAIL : EXIT_OK;
}

static int topology_help(struct icn_ctx *ctx)
{
	(void)ctx;
	printf("Usage:\n");
	print_usage(stdout, topology_cmds);
	return EXIT_OK;
}

const struct icnctl_cmd topology_cmds[] = {
	{ "show", topology_show, "topology show [ dot | -d ]" },
	{ "check", topology_check, "topology check FILE    (lines: port PORT fabric-id ID)" },
	{ "help", topology_help, "topology help" },
	{ NULL, NULL, NULL },
};

int cmd_topology(struct icn_ctx *ctx)
{
	return dispatch(ctx, "topology", topology_cmds, "show");
}
