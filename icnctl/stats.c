// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl stats
 *
 * "stats show [PORT]" prints the counters of every port (or one): bytes
 * and 4 KiB packets each way, errors and link-down count.  "stats errors
 * [PORT]" prints the error side only (errors, link-down count, oper state
 * and pending injected drops) of the ports that have a card or a non-zero
 * error counter.  "stats watch [PORT] [interval SECS] [count N]" (or -i
 * SECS) samples the counters every interval and prints, per port and
 * round, the counters and the byte rates since the previous round; with
 * -j one JSON object per line, flushed.  "stats clear [PORT]" zeroes the
 * counters (CAP_NET_ADMIN).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "icnctl.h"

static int stats_show(struct icn_ctx *ctx)
{
	return port_show_common(ctx, "stats show", true);
}

static int stats_clear(struct icn_ctx *ctx)
{
	return port_clear_common(ctx, "stats clear");
}

/* "[ PORT ]" as the first word: -1 for all; advances @i past it. */
static int stats_port_arg(struct icn_ctx *ctx, int *i, int64_t *port)
{
	uint32_t p;

	*port = -1;
	if (*i < ctx->argc && ctx->argv[*i][0] >= '0' && ctx->argv[*i][0] <= '9') {
		if (parse_port(ctx->argv[*i], &p))
			return -1;
		*port = p;
		(*i)++;
	}
	return 0;
}

static int stats_errors(struct icn_ctx *ctx)
{
	struct port_list *pl;
	int64_t port;
	int i = 0, rc;

	if (stats_port_arg(ctx, &i, &port))
		return EXIT_USAGE;
	if (i != ctx->argc) {
		fprintf(stderr, "icnctl: usage: icnctl stats errors [ PORT ]\n");
		return EXIT_USAGE;
	}
	pl = calloc(1, sizeof(*pl));
	if (!pl) {
		fprintf(stderr, "icnctl: out of memory\n");
		return EXIT_FAIL;
	}
	rc = port_list_get(pl, port);
	if (rc == EXIT_OK) {
		for (int k = 0; k < pl->n; k++) {
			const struct port_info *p = &pl->ports[k];

			if (port < 0 && !p->present && !p->errors && !p->link_down)
				continue;
			out_obj_start();
			out_u32("port", "port", p->index);
			out_str("oper", "oper", port_state_name(p->oper));
			out_u64("errors", "errors", p->errors);
			out_u64("link_down_count", "link-down", p->link_down);
			out_u64("inject_drops", "inject-drops", p->inject_drops);
			out_obj_end();
		}
		if (out_finish())
			rc = EXIT_FAIL;
	}
	free(pl);
	return rc;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(uint32_t s)
{
	struct timespec ts = { .tv_sec = s };

	while (nanosleep(&ts, &ts))
		;
}

static int stats_watch(struct icn_ctx *ctx)
{
	static const char *const keys[] = { "interval", "count" };
	struct port_list *cur, *prev;
	uint32_t interval = ctx->interval ? ctx->interval : 1, count = 0, v;
	double t0, t, tprev = 0;
	int64_t port;
	int i = 0, k, rc = EXIT_OK;

	if (stats_port_arg(ctx, &i, &port))
		return EXIT_USAGE;
	for (; i < ctx->argc; i += 2) {
		k = match_word(ctx->argv[i], keys, 2);
		if (k < 0 || i + 1 >= ctx->argc ||
		    parse_u32(ctx->argv[i + 1], k ? UINT32_MAX : 86400, &v) || !v) {
			fprintf(stderr, "icnctl: usage: icnctl [ -i SECS ] stats watch [ PORT ] [ interval SECS ] [ count N ]\n");
			return EXIT_USAGE;
		}
		if (k)
			count = v;
		else
			interval = v;
	}
	cur = calloc(1, sizeof(*cur));
	prev = calloc(1, sizeof(*prev));
	if (!cur || !prev) {
		free(cur);
		free(prev);
		fprintf(stderr, "icnctl: out of memory\n");
		return EXIT_FAIL;
	}
	out_stream(true);
	t0 = now_s();
	for (uint32_t round = 0; !count || round < count; round++) {
		if (round)
			sleep_s(interval);
		rc = port_list_get(cur, port);
		if (rc)
			break;
		t = now_s();
		for (int n = 0; n < cur->n; n++) {
			const struct port_info *p = &cur->ports[n], *q = NULL;
			double dt = t - tprev;

			if (port < 0 && !p->present)
				continue;
			for (int m = 0; round && m < prev->n; m++)
				if (prev->ports[m].index == p->index)
					q = &prev->ports[m];
			out_obj_start();
			out_u64("time_ms", NULL, (uint64_t)((t - t0) * 1000));
			out_u32("port", "port", p->index);
			port_print_stats(p);
			out_u64("tx_bytes_per_s", "tx-rate",
				q && dt > 0 ? (uint64_t)((p->tx_bytes - q->tx_bytes) / dt) : 0);
			out_u64("rx_bytes_per_s", "rx-rate",
				q && dt > 0 ? (uint64_t)((p->rx_bytes - q->rx_bytes) / dt) : 0);
			out_obj_end();
		}
		memcpy(prev, cur, sizeof(*cur));
		tprev = t;
	}
	if (out_finish() && !rc)
		rc = EXIT_FAIL;
	out_stream(false);
	free(cur);
	free(prev);
	return rc;
}

static int stats_help(struct icn_ctx *ctx)
{
	(void)ctx;
	printf("Usage:\n");
	print_usage(stdout, stats_cmds);
	return EXIT_OK;
}

const struct icnctl_cmd stats_cmds[] = {
	{ "show", stats_show, "stats show [ PORT | present ]" },
	{ "errors", stats_errors, "stats errors [ PORT ]" },
	{ "watch", stats_watch,
	  "[ -i SECS ] stats watch [ PORT ] [ interval SECS ] [ count N ]" },
	{ "clear", stats_clear, "stats clear [ PORT ]" },
	{ "help", stats_help, "stats help" },
	{ NULL, NULL, NULL },
};

int cmd_stats(struct icn_ctx *ctx)
{
	return dispatch(ctx, "stats", stats_cmds, "show");
}
