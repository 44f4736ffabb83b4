/* SPDX-License-Identifier: MIT */
/*
 * icnctl internal interfaces: command tables, argument helpers, output and
 * the netlink connection.
 */
#ifndef ICNCTL_H
#define ICNCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The stack's version (the file VERSION), passed by icnctl.mk. */
#define ICNCTL_VERSION M890_VERSION_STRING

/* Exit codes. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
};

struct icn_ctx {
	bool json;
	bool pretty;
	bool stats;		/* -s: counters in port show */
	uint32_t interval;	/* -i: seconds between stats watch rounds */
	int argc;		/* words left after the command word */
	char **argv;
};

/* ICN Switch 1.0: ports, fabric ids and partitions are 0..63. */
#define ICN_PORTS	64
#define ICN_PARTITIONS	64

/* One word of a command table; the tables end with a NULL name. */
struct icnctl_cmd {
	const char *name;
	int (*fn)(struct icn_ctx *ctx);
	const char *help;	/* one usage line, without "icnctl " */
};

/* util.c: pure helpers, unit tested on the host. */
#define MATCH_NONE	(-1)
#define MATCH_AMBIGUOUS	(-2)
int match_word(const char *word, const char *const *names, int n);
int match_cmd(const char *word, const struct icnctl_cmd *cmds);
int parse_u32(const char *s, uint32_t max, uint32_t *out);
int parse_u64(const char *s, uint64_t max, uint64_t *out);
/*
 * A port, fabric id or partition number 0..@n-1 named @what; prints a
 * usage error naming the range and returns -1 when it is not one.
 */
int parse_index(const char *word, const char *what, uint32_t n, uint32_t *out);
/* A set of ports "1,3,5-7" as a bitmap; -1 on a malformed list. */
int parse_port_list(const char *s, uint64_t *ports);
/* The bitmap as "1,3,5-7" ("none" when empty). */
void format_port_list(uint64_t ports, char *buf, size_t len);
/* A speed in Mbit/s: "6400000", "6400000Mbps", "6400Gbps", "6.4Tbps". */
int parse_speed(const char *s, uint32_t *mbps);
int parse_inject_kind(const char *word, uint32_t *kind);
const char *inject_kind_name(uint32_t kind);
const char *error_kind_name(uint32_t kind);
const char *port_state_name(uint32_t state);
int parse_admin_state(const char *word, uint32_t *state);
void format_speed(uint32_t mbps, char *buf, size_t len);
int split_words(char *line, char **words, int max);
int dispatch(struct icn_ctx *ctx, const char *what,
	     const struct icnctl_cmd *cmds, const char *dflt);
void print_usage(FILE *f, const struct icnctl_cmd *cmds);

/* json_out.c: one call per field serves text and JSON output. */
void out_init(bool json, bool pretty, FILE *f);
void out_obj_start(void);
void out_obj_end(void);
void out_u32(const char *jkey, const char *tkey, uint32_t v);
void out_u64(const char *jkey, const char *tkey, uint64_t v);
void out_str(const char *jkey, const char *tkey, const char *v);
void out_bool(const char *jkey, const char *tkey, bool v);
/* A set of ports: a JSON array of numbers, in text "1,3,5-7". */
void out_port_list(const char *jkey, const char *tkey, uint64_t ports);
/* A number in JSON shown as preformatted @text in text mode. */
void out_u64_as(const char *jkey, uint64_t v, const char *tkey,
		const char *text);
int out_finish(void);
/* Stream mode: each JSON object is printed on its own line and flushed. */
void out_stream(bool on);

/* nl.c: the "icn" generic netlink family. */
struct nl_msg;
struct nlattr;
typedef int (*icn_msg_fn)(struct nlattr **tb, void *arg);
typedef int (*icn_ntf_fn)(uint8_t cmd, struct nlattr **tb, void *arg);

#define ICN_REQ_MAX_ATTRS 72

struct icn_req {
	uint8_t cmd;
	bool dump;
	const char *what;	/* names the request in error messages */
	bool has_port;
	uint32_t port;
	bool has_admin;
	uint32_t admin_state;
	bool has_card;
	uint32_t card;		/* ICN_A_CARD_FABRIC_ID */
	/* Further attributes, in order (icn_req_add()). */
	int nattrs;
	struct {
		uint16_t type;
		uint8_t bytes;	/* 1, 4 or 8 */
		uint64_t val;
	} attrs[ICN_REQ_MAX_ATTRS];
	/* Called before a dump is restarted after NLM_F_DUMP_INTR. */
	void (*reset)(void *arg);
};

/*
 * The attribute stream of the message a handler is called for (to walk
 * repeated attributes, which the parsed table holds only the last of).
 */
struct nlattr *icn_nl_attrs(int *len);

/* Append a u8/u32/u64 attribute (@bytes 1, 4 or 8) to @req. */
void icn_req_add(struct icn_req *req, uint16_t type, uint8_t bytes,
		 uint64_t val);

/*
 * Send @req and pass every reply's attributes to @fn.  Prints the cause
 * of a failure (driver not loaded, missing CAP_NET_ADMIN, the kernel's
 * extack text) and returns an exit code.
 */
int icn_nl_request(const struct icn_req *req, icn_msg_fn fn, void *arg);
/*
 * Join the multicast groups @groups[0..@n) and pass each notification to
 * @fn until @fn returns non-zero or @count notifications were seen (0:
 * forever).  Returns an exit code.
 */
int icn_nl_monitor(const char *const *groups, int n, unsigned long count,
		   icn_ntf_fn fn, void *arg);

/* port.c: port objects shared by port, stats, topology and monitor. */
#define ICN_MAX_PORTS 256
struct port_info {
	uint32_t index;
	uint32_t admin, oper;
	bool present;
	bool has_fabric_id;
	uint32_t fabric_id;
	uint32_t partition;
	uint32_t speed;
	uint64_t tx_bytes, rx_bytes, tx_packets, rx_packets;
	uint64_t errors, link_down;
	uint64_t inject_drops;
	char dev[32];
};

struct port_list {
	struct port_info ports[ICN_MAX_PORTS];
	int n;
};

void port_info_parse(struct nlattr **tb, struct port_info *p);
void port_print(const struct port_info *p, bool stats);
void port_print_stats(const struct port_info *p);
/* Read one port (@port >= 0) or every port; returns an exit code. */
int port_list_get(struct port_list *pl, int64_t port);
int parse_port(const char *word, uint32_t *port);
int port_show_common(struct icn_ctx *ctx, const char *cmd, bool only_stats);
int port_clear_common(struct icn_ctx *ctx, const char *cmd);

/* route.c, partition.c: objects also printed by monitor. */
void route_print(struct nlattr **tb);
void partition_print(struct nlattr **tb);

/* object entry points, one file each */
int cmd_port(struct icn_ctx *ctx);
int cmd_switch(struct icn_ctx *ctx);
int cmd_card(struct icn_ctx *ctx);
int cmd_stats(struct icn_ctx *ctx);
int cmd_topology(struct icn_ctx *ctx);
int cmd_monitor(struct icn_ctx *ctx);
int cmd_route(struct icn_ctx *ctx);
int cmd_partition(struct icn_ctx *ctx);

extern const struct icnctl_cmd port_cmds[];
extern const struct icnctl_cmd switch_cmds[];
extern const struct icnctl_cmd card_cmds[];
extern const struct icnctl_cmd stats_cmds[];
extern const struct icnctl_cmd topology_cmds[];
extern const struct icnctl_cmd monitor_cmds[];
extern const struct icnctl_cmd route_cmds[];
extern const struct icnctl_cmd partition_cmds[];

#endif /* ICNCTL_H */
