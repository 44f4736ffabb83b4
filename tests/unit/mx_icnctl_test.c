// SPDX-License-Identifier: MIT
/*
 * DOC: host unit test of icnctl's argument handling and output
 *
 * Unique-prefix matching (exact wins, ambiguity is an error), number and
 * state parsing, speed formatting, command dispatch exit codes, and that
 * text output is one line per object while JSON output parses back with
 * the same values.  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

static int n, failed;

static void ok(int cond, const char *name)
{
	n++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, name);
	if (!cond)
		failed++;
}

/* Stubs for the object entry points referenced by icnctl.h users. */
const struct icnctl_cmd port_cmds[] = { { NULL, NULL, NULL } };
const struct icnctl_cmd switch_cmds[] = { { NULL, NULL, NULL } };

static int ran;
static int fn_show(struct icn_ctx *ctx) { (void)ctx; ran = 1; return 0; }
static int fn_set(struct icn_ctx *ctx) { (void)ctx; ran = 2; return 0; }
static int fn_settings(struct icn_ctx *ctx) { (void)ctx; ran = 3; return 0; }

static const struct icnctl_cmd table[] = {
	{ "show", fn_show, NULL },
	{ "set", fn_set, NULL },
	{ "settings", fn_settings, NULL },
	{ NULL, NULL, NULL },
};

static int run(const char *word, const char *dflt)
{
	char *argv[2] = { (char *)word, NULL };
	struct icn_ctx ctx = { .argc = word ? 1 : 0, .argv = argv };
	FILE *saved = stderr;
	int rc;

	ran = 0;
	stderr = fopen("/dev/null", "w");
	rc = dispatch(&ctx, "test", table, dflt);
	fclose(stderr);
	stderr = saved;
	return rc;
}

static void test_match(void)
{
	static const char *const objs[] = { "port", "partition", "switch" };

	ok(match_word("port", objs, 3) == 0, "exact match");
	ok(match_word("po", objs, 3) == 0, "unique prefix");
	ok(match_word("p", objs, 3) == MATCH_AMBIGUOUS, "ambiguous prefix");
	ok(match_word("pa", objs, 3) == 1, "prefix of the second");
	ok(match_word("s", objs, 3) == 2, "single letter");
	ok(match_word("ports", objs, 3) == MATCH_NONE, "longer word is no match");
	ok(match_word("", objs, 3) == MATCH_NONE, "empty word");
	ok(match_word(NULL, objs, 3) == MATCH_NONE, "NULL word");
	ok(match_word("x", objs, 3) == MATCH_NONE, "unknown word");
	ok(match_cmd("set", table) == 1, "exact match wins over longer name");
	ok(match_cmd("se", table) == MATCH_AMBIGUOUS, "se is ambiguous");
	ok(match_cmd("sett", table) == 2, "sett is settings");

	ok(run("sh", NULL) == EXIT_OK && ran == 1, "dispatch by prefix");
	ok(run("set", NULL) == EXIT_OK && ran == 2, "dispatch exact");
	ok(run("s", NULL) == EXIT_USAGE && ran == 0, "ambiguous exits 2");
	ok(run("bogus", NULL) == EXIT_USAGE && ran == 0, "unknown exits 2");
	ok(run(NULL, "show") == EXIT_OK && ran == 1, "default command");
	ok(run(NULL, NULL) == EXIT_USAGE, "missing command exits 2");
}

static void test_parse(void)
{
	uint32_t v = 99, st = 0;
	char buf[32];

	ok(parse_u32("0", 63, &v) == 0 && v == 0, "parse 0");
	ok(parse_u32("63", 63, &v) == 0 && v == 63, "parse max");
	ok(parse_u32("0x10", 63, &v) == 0 && v == 16, "parse hex");
	ok(parse_u32("010", 63, &v) == 0 && v == 10, "parse leading zero as decimal");
	ok(parse_u32("08", 63, &v) == 0 && v == 8, "parse 08 as decimal");
	ok(parse_u32("64", 63, &v) == -1, "parse above max");
	ok(parse_u32("-1", UINT32_MAX, &v) == -1, "parse negative");
	ok(parse_u32("3x", 63, &v) == -1, "parse trailing junk");
	ok(parse_u32("", 63, &v) == -1, "parse empty");
	ok(parse_u32("99999999999", UINT32_MAX, &v) == -1, "parse overflow");
	ok(parse_admin_state("up", &st) == 0 && st == ICN_PORT_STATE_UP, "state up");
	ok(parse_admin_state("d", &st) == 0 && st == ICN_PORT_STATE_DOWN, "state d");
	ok(parse_admin_state("sideways", &st) == -1, "bad state");
	ok(strcmp(port_state_name(ICN_PORT_STATE_UP), "up") == 0, "name up");
	ok(strcmp(port_state_name(ICN_PORT_STATE_TRAINING), "training") == 0,
	   "name training");
	ok(strcmp(port_state_name(0), "unknown") == 0, "name 0");
	ok(strcmp(port_state_name(77), "unknown") == 0, "name 77");
	format_speed(6400000, buf, sizeof(buf));
	ok(strcmp(buf, "6400Gbps") == 0, "speed in Gbps");
	format_speed(1500, buf, sizeof(buf));
	ok(strcmp(buf, "1500Mbps") == 0, "speed in Mbps");
	format_speed(0, buf, sizeof(buf));
	ok(strcmp(buf, "0Mbps") == 0, "speed 0");
}

static void emit_two(bool json, bool pretty, char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);

	out_init(json, pretty, f);
	for (uint32_t p = 0; p < 2; p++) {
		out_obj_start();
		out_u32("port", "port", p);
		out_str("admin", "admin", "up");
		out_bool("present", p ? NULL : "present", p != 0);
		out_u64_as("speed_mbps", 6400000, "speed", "6400Gbps");
		out_u64("tx_bytes", "tx", 1ull << 40);
		out_str("card", "card", "acc\"el");
		out_obj_end();
	}
	out_finish();
	fclose(f);
}

static void test_output(void)
{
	char *text = NULL;
	size_t len = 0;
	json_object *root, *o, *v;

	emit_two(false, false, &text, &len);
	ok(strcmp(text,
		  "port 0 admin up present no speed 6400Gbps tx 1099511627776 card acc\"el\n"
		  "port 1 admin up speed 6400Gbps tx 1099511627776 card acc\"el\n") == 0,
	   "text: one line per object, key value pairs");
	free(text);

	for (int pretty = 0; pretty < 2; pretty++) {
		text = NULL;
		emit_two(true, pretty, &text, &len);
		root = json_tokener_parse(text);
		ok(root && json_object_is_type(root, json_type_array) &&
		   json_object_array_length(root) == 2,
		   pretty ? "pretty JSON parses to an array of 2" :
			    "JSON parses to an array of 2");
		o = root ? json_object_array_get_idx(root, 1) : NULL;
		ok(o && json_object_object_get_ex(o, "tx_bytes", &v) &&
		   json_object_get_uint64(v) == (1ull << 40) &&
		   json_object_object_get_ex(o, "present", &v) &&
		   json_object_get_boolean(v) &&
		   json_object_object_get_ex(o, "card", &v) &&
		   strcmp(json_object_get_string(v), "acc\"el") == 0 &&
		   json_object_object_get_ex(o, "speed_mbps", &v) &&
		   json_object_get_int64(v) == 6400000,
		   "JSON values round-trip (u64, bool, escaped string)");
		ok(!pretty == !strchr(text, '\n') || text[strlen(text) - 1] == '\n',
		   "JSON ends with a newline");
		json_object_put(root);
		free(text);
	}
	text = NULL;
	{
		FILE *f = open_memstream(&text, &len);

		out_init(true, false, f);
		out_finish();
		fclose(f);
		ok(strcmp(text, "[]\n") == 0 || strcmp(text, "[ ]\n") == 0,
		   "empty JSON output is an empty array");
		free(text);
	}
}

static void test_split(void)
{
	char line[] = "  port set 'a b' \"c\"\tstate down # comment\n";
	char bad[] = "port 'open";
	char many[] = "a b c d";
	char empty[] = "   # only a comment\n";
	char *w[8];
	int n;

	n = split_words(line, w, 8);
	ok(n == 6, "split_words: six words, comment dropped");
	ok(n == 6 && !strcmp(w[0], "port") && !strcmp(w[2], "a b") &&
	   !strcmp(w[3], "c") && !strcmp(w[5], "down"),
	   "split_words: quoted words kept whole");
	ok(split_words(bad, w, 8) == -1, "split_words: unclosed quote is an error");
	ok(split_words(many, w, 3) == -1, "split_words: too many words is an error");
	ok(split_words(empty, w, 8) == 0, "split_words: comment line has no words");
}

static void test_stream(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_object *a, *b;
	char *nl;

	out_init(true, false, f);
	out_stream(true);
	out_obj_start();
	out_u32("port", "port", 1);
	out_obj_end();
	out_obj_start();
	out_u32("port", "port", 2);
	out_obj_end();
	out_finish();
	out_stream(false);
	fclose(f);
	nl = strchr(text, '\n');
	ok(nl && strchr(nl + 1, '\n') && !nl[1 + strcspn(nl + 1, "\n") + 1],
	   "stream JSON: exactly two lines");
	if (nl)
		*nl = '\0';
	a = json_tokener_parse(text);
	b = nl ? json_tokener_parse(nl + 1) : NULL;
	ok(a && json_object_is_type(a, json_type_object) &&
	   json_object_get_int(json_object_object_get(a, "port")) == 1,
	   "stream JSON: first line is an object with port 1");
	ok(b && json_object_get_int(json_object_object_get(b, "port")) == 2,
	   "stream JSON: second line is an object with port 2");
	json_object_put(a);
	json_object_put(b);
	free(text);
}

/* Port lists, speeds, ranges and injection kinds of the fabric commands. */
static void test_fabric_args(void)
{
	char buf[256];
	uint64_t ports, v64;
	uint32_t v;

	ok(parse_port_list("1,3,5-7", &ports) == 0 && ports == 0xeaull, "port list 1,3,5-7");
	ok(parse_port_list("0-63", &ports) == 0 && ports == UINT64_MAX, "port list 0-63");
	ok(parse_port_list("none", &ports) == 0 && ports == 0, "port list none");
	ok(parse_port_list("64", &ports) < 0, "port list: 64 refused");
	ok(parse_port_list("5-3", &ports) < 0, "port list: reversed range refused");
	ok(parse_port_list("1,,2", &ports) < 0, "port list: empty item refused");
	ok(parse_port_list("", &ports) < 0, "port list: empty string refused");
	ok(parse_port_list(",", &ports) < 0, "port list: lone comma refused");
	ok(parse_port_list("1,", &ports) < 0, "port list: trailing comma refused");
	ok(parse_port_list("1-x", &ports) < 0, "port list: 1-x refused");
	ok(parse_port_list("-1", &ports) < 0, "port list: -1 refused");
	format_port_list(0xeaull, buf, sizeof(buf));
	ok(strcmp(buf, "1,3,5-7") == 0, "format 1,3,5-7");
	format_port_list(0x3ull << 10, buf, sizeof(buf));
	ok(strcmp(buf, "10,11") == 0, "format a pair as 10,11");
	format_port_list(UINT64_MAX & ~2ull, buf, sizeof(buf));
	ok(strcmp(buf, "0,2-63") == 0, "format 0,2-63");
	format_port_list(0, buf, sizeof(buf));
	ok(strcmp(buf, "none") == 0, "format none");
	format_port_list(0x5555555555555555ull, buf, sizeof(buf));
	ok(parse_port_list(buf, &ports) == 0 && ports == 0x5555555555555555ull,
	   "format and parse back every other port");

	ok(parse_speed("6400000", &v) == 0 && v == 6400000, "speed in Mbit/s");
	ok(parse_speed("6400Gbps", &v) == 0 && v == 6400000, "speed 6400Gbps");
	ok(parse_speed("6.4tbps", &v) == 0 && v == 6400000, "speed 6.4tbps");
	ok(parse_speed("100Mbps", &v) == 0 && v == 100, "speed 100Mbps");
	ok(parse_speed("0.5", &v) < 0, "speed: fraction of a Mbit/s refused");
	ok(parse_speed("fast", &v) < 0, "speed: word refused");
	ok(parse_speed("10Xbps", &v) < 0, "speed: unknown unit refused");
	ok(parse_speed("-5", &v) < 0, "speed: negative refused");
	ok(parse_speed("5000Tbps", &v) < 0, "speed: beyond 32 bits refused");

	ok(parse_index("63", "port", 64, &v) == 0 && v == 63, "index 63 of 64");
	ok(parse_index("64", "port", 64, &v) < 0, "index 64 of 64 refused");
	ok(parse_u64("4294967296", 1ull << 32, &v64) == 0 && v64 == 1ull << 32, "u64 2^32");
	ok(parse_u64("010", 63, &v64) == 0 && v64 == 10, "u64 leading zero as decimal");
	ok(parse_u64("4294967297", 1ull << 32, &v64) < 0, "u64 past the maximum refused");

	ok(parse_inject_kind("drop", &v) == 0 && v == ICN_INJECT_KIND_DROP, "inject drop");
	ok(parse_inject_kind("l", &v) == 0 && v == ICN_INJECT_KIND_LINK_ERROR, "inject l = link-error");
	ok(parse_inject_kind("x", &v) < 0, "inject x refused");
	ok(strcmp(inject_kind_name(ICN_INJECT_KIND_CLEAR), "clear") == 0, "inject clear name");
	ok(strcmp(error_kind_name(ICN_ERROR_KIND_FABRIC_FAULT), "fabric-fault") == 0,
	   "error fabric-fault name");
	ok(strcmp(error_kind_name(99), "unknown") == 0, "unknown error kind");
}

int main(void)
{
	test_match();
	test_fabric_args();
	test_parse();
	test_output();
	test_split();
	test_stream();
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
