// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl argument helpers
 *
 * Words on the command line may be abbreviated to any unique prefix
 * ("icnctl po s" = "icnctl port show"); an exact match always wins, and an
 * ambiguous prefix is an error rather than the first match.  This file
 * also holds the enum-to-name tables and number parsing, with no netlink
 * or JSON dependency, so that host unit tests can link it alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

int match_word(const char *word, const char *const *names, int n)
{
	size_t len;
	int found = MATCH_NONE;

	if (!word || !*word)
		return MATCH_NONE;
	len = strlen(word);
	for (int i = 0; i < n; i++) {
		if (!names[i])
			continue;
		if (strcmp(word, names[i]) == 0)
			return i;
		if (strncmp(word, names[i], len) == 0)
			found = found == MATCH_NONE ? i : MATCH_AMBIGUOUS;
	}
	return found;
}

int match_cmd(const char *word, const struct icnctl_cmd *cmds)
{
	const char *names[32];
	int n = 0;

	while (cmds[n].name && n < 32) {
		names[n] = cmds[n].name;
		n++;
	}
	return match_word(word, names, n);
}

/*
 * Base of a number word: 16 with a 0x prefix, else 10 (a leading zero does
 * not make it octal: "010" is ten, as a user reading it expects).
 */
static int number_base(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

/* Decimal (or 0x hex) number in 0..@max.  Returns 0 or -1. */
int parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	unsigned long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoul(s, &end, number_base(s));
	if (errno || *end || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Like parse_u32() for 64-bit values in 0..@max. */
int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, number_base(s));
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_index(const char *word, const char *what, uint32_t n, uint32_t *out)
{
	if (parse_u32(word, n - 1, out)) {
		fprintf(stderr, "icnctl: %s \"%s\" is not in the range 0..%u\n",
			what, word, n - 1);
		return -1;
	}
	return 0;
}

int parse_port_list(const char *s, uint64_t *ports)
{
	char buf[512], *tok, *next, *dash;
	uint32_t a, b;

	*ports = 0;
	if (!s || strlen(s) >= sizeof(buf))
		return -1;
	if (strcmp(s, "none") == 0)
		return 0;
	strcpy(buf, s);
	/* Every element must be there: "", ",", "1,,2" and "1," are refused. */
	for (next = buf; next;) {
		tok = strsep(&next, ",");
		if (!*tok)
			return -1;
		dash = strchr(tok, '-');
		if (dash)
			*dash = '\0';
		if (parse_u32(tok, ICN_PORTS - 1, &a))
			return -1;
		b = a;
		if (dash && (parse_u32(dash + 1, ICN_PORTS - 1, &b) || b < a))
			return -1;
		for (; a <= b; a++)
			*ports |= 1ull << a;
	}
	return 0;
}

void format_port_list(uint64_t ports, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i = 0, j;

	buf[0] = '\0';
	if (!ports) {
		snprintf(buf, len, "none");
		return;
	}
	while (i < ICN_PORTS) {
		if (!(ports >> i & 1)) {
			i++;
			continue;
		}
		for (j = i; j + 1 < ICN_PORTS && (ports >> (j + 1) & 1); j++)
			;
		if (off < len)
			off += snprintf(buf + off, len - off, "%s%u", off ? "," : "", i);
		if (j > i && off < len)
			off += snprintf(buf + off, len - off, "%c%u",
					j == i + 1 ? ',' : '-', j);
		i = j + 1;
	}
}

int parse_speed(const char *s, uint32_t *mbps)
{
	static const struct { const char *suffix; double mult; } units[] = {
		{ "", 1 }, { "Mbps", 1 }, { "Gbps", 1e3 }, { "Tbps", 1e6 },
	};
	double v, scaled;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	v = strtod(s, &end);
	if (end == s)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		scaled = v * units[i].mult;
		if (scaled < 1 || scaled > UINT32_MAX || scaled != (uint32_t)scaled)
			return -1;
		*mbps = (uint32_t)scaled;
		return 0;
	}
	return -1;
}

static const char *const inject_names[] = {
	[ICN_INJECT_KIND_CLEAR] = "clear",
	[ICN_INJECT_KIND_LINK_ERROR] = "link-error",
	[ICN_INJECT_KIND_DROP] = "drop",
};

int parse_inject_kind(const char *word, uint32_t *kind)
{
	int m = match_word(word, inject_names, sizeof(inject_names) / sizeof(inject_names[0]));

	if (m < 0)
		return -1;
	*kind = (uint32_t)m;
	return 0;
}

const char *inject_kind_name(uint32_t kind)
{
	if (kind < sizeof(inject_names) / sizeof(inject_names[0]) && inject_names[kind])
		return inject_names[kind];
	return "unknown";
}

static const char *const error_names[] = {
	[ICN_ERROR_KIND_LINK_ERROR] = "link-error",
	[ICN_ERROR_KIND_INJECTED] = "injected",
	[ICN_ERROR_KIND_FABRIC_FAULT] = "fabric-fault",
};

const char *error_kind_name(uint32_t kind)
{
	if (kind < sizeof(error_names) / sizeof(error_names[0]) && error_names[kind])
		return error_names[kind];
	return "unknown";
}

static const char *const state_names[] = {
	[ICN_PORT_STATE_DOWN] = "down",
	[ICN_PORT_STATE_TRAINING] = "training",
	[ICN_PORT_STATE_UP] = "up",
	[ICN_PORT_STATE_ERROR] = "error",
};

const char *port_state_name(uint32_t state)
{
	if (state < sizeof(state_names) / sizeof(state_names[0]) &&
	    state_names[state])
		return state_names[state];
	return "unknown";
}

/* "up" or "down" (or a unique prefix) to ICN_PORT_STATE_*. */
int parse_admin_state(const char *word, uint32_t *state)
{
	static const char *const names[] = { "up", "down" };
	int m = match_word(word, names, 2);

	if (m < 0)
		return -1;
	*state = m == 0 ? ICN_PORT_STATE_UP : ICN_PORT_STATE_DOWN;
	return 0;
}

/* Link speed in Mbit/s as text: "6400Gbps", "100Mbps". */
void format_speed(uint32_t mbps, char *buf, size_t len)
{
	if (mbps && mbps % 1000 == 0)
		snprintf(buf, len, "%uGbps", mbps / 1000);
	else
		snprintf(buf, len, "%uMbps", mbps);
}

void print_usage(FILE *f, const struct icnctl_cmd *cmds)
{
	for (int i = 0; cmds[i].name; i++)
		if (cmds[i].help)
			fprintf(f, "       icnctl %s\n", cmds[i].help);
}

/*
 * Run the command named by the next word of @ctx in @cmds (or @dflt when
 * there is none).  Unknown and ambiguous words are usage errors.
 */
int dispatch(struct icn_ctx *ctx, const char *what,
	     const struct icnctl_cmd *cmds, const char *dflt)
{
	const char *word = ctx->argc ? ctx->argv[0] : dflt;
	int m;

	if (!word) {
		fprintf(stderr, "icnctl: missing %s; try \"icnctl help\"\n", what);
		return EXIT_USAGE;
	}
	if (ctx->argc) {
		ctx->argc--;
		ctx->argv++;
	}
	m = match_cmd(word, cmds);
	if (m == MATCH_AMBIGUOUS) {
		fprintf(stderr, "icnctl: %s%s \"%s\" is ambiguous:", what,
			strcmp(what, "object") ? " command" : "", word);
		for (int i = 0; cmds[i].name; i++)
			if (strncmp(word, cmds[i].name, strlen(word)) == 0)
				fprintf(stderr, " %s", cmds[i].name);
		fprintf(stderr, "\n");
		return EXIT_USAGE;
	}
	if (m < 0) {
		if (strcmp(what, "object") == 0)
			fprintf(stderr, "icnctl: unknown object \"%s\"; try \"icnctl help\"\n",
				word);
		else
			fprintf(stderr, "icnctl: unknown %s command \"%s\"; try \"icnctl %s help\"\n",
				what, word, what);
		return EXIT_USAGE;
	}
	return cmds[m].fn(ctx);
}

/*
 * Split @line in place into blank-separated words, at most @max; a word
 * may be quoted with ' or ".  Returns the number of words, or -1 when
 * there are too many or a quote is not closed.  A '#' at the start of a
 * word starts a comment.
 */
int split_words(char *line, char **words, int max)
{
	char *p = line, *w;
	int n = 0;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			return n;
		if (n == max)
			return -1;
		if (*p == '\'' || *p == '"') {
			char q = *p++;

			w = p;
			while (*p && *p != q)
				p++;
			if (!*p)
				return -1;
		} else {
			w = p;
			while (*p && *p != ' ' && *p != '\t' && *p != '\n' &&
			       *p != '\r')
				p++;
		}
		words[n++] = w;
		if (*p)
			*p++ = '\0';
	}
}
