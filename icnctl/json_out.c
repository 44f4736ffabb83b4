// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl output
 *
 * Handlers describe each object once, field by field, and this file
 * renders it: in text mode as one line of "key value" pairs (iproute2
 * style), in JSON mode as one object of a top-level array that is printed
 * when the command ends (json-c; -p pretty-prints it).  Keeping one call
 * per field for both forms means the two outputs cannot drift apart.
 */
#include <inttypes.h>
#include <stdio.h>

#include <json.h>

#include "icnctl.h"

static struct {
	bool json;
	bool pretty;
	FILE *f;
	bool first;		/* text: no field printed on this line yet */
	bool stream;		/* JSON: one object per line, flushed */
	json_object *array;
	json_object *obj;
} out;

void out_init(bool json, bool pretty, FILE *f)
{
	out.json = json;
	out.pretty = pretty;
	out.f = f;
	if (out.array)		/* a command of a batch that failed */
		json_object_put(out.array);
	out.array = json ? json_object_new_array() : NULL;
	out.obj = NULL;
}

void out_obj_start(void)
{
	if (out.json)
		out.obj = json_object_new_object();
	out.first = true;
}

void out_stream(bool on)
{
	out.stream = on;
}

void out_obj_end(void)
{
	if (out.json && out.stream) {
		fprintf(out.f, "%s\n",
			json_object_to_json_string_ext(out.obj, JSON_C_TO_STRING_PLAIN));
		json_object_put(out.obj);
		out.obj = NULL;
	} else if (out.json) {
		json_object_array_add(out.array, out.obj);
		out.obj = NULL;
	} else {
		fputc('\n', out.f);
	}
	if (out.stream)
		fflush(out.f);
}

static void text_field(const char *tkey, const char *val)
{
	if (!tkey)
		return;
	fprintf(out.f, "%s%s %s", out.first ? "" : " ", tkey, val);
	out.first = false;
}

void out_u64_as(const char *jkey, uint64_t v, const char *tkey,
		const char *text)
{
	if (out.json) {
		if (jkey)
			json_object_object_add(out.obj, jkey,
					       json_object_new_uint64(v));
	} else {
		text_field(tkey, text);
	}
}

void out_u64(const char *jkey, const char *tkey, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	out_u64_as(jkey, v, tkey, buf);
}

void out_u32(const char *jkey, const char *tkey, uint32_t v)
{
	out_u64(jkey, tkey, v);
}

void out_str(const char *jkey, const char *tkey, const char *v)
{
	if (out.json) {
		if (jkey)
			json_object_object_add(out.obj, jkey,
					       json_object_new_string(v));
	} else {
		text_field(tkey, v);
	}
}

void out_bool(const char *jkey, const char *tkey, bool v)
{
	if (out.json) {
		if (jkey)
			json_object_object_add(out.obj, jkey,
					       json_object_new_boolean(v));
	} else {
		text_field(tkey, v ? "yes" : "no");
	}
}

void out_port_list(const char *jkey, const char *tkey, uint64_t ports)
{
	char buf[256];
	json_object *a;

	if (!out.json) {
		format_port_list(ports, buf, sizeof(buf));
		text_field(tkey, buf);
		return;
	}
	if (!jkey)
		return;
	a = json_object_new_array();
	for (int i = 0; i < ICN_PORTS; i++)
		if (ports >> i & 1)
			json_object_array_add(a, json_object_new_int(i));
	json_object_object_add(out.obj, jkey, a);
}

/* Print the JSON document (JSON mode) and release it. */
int out_finish(void)
{
	int ret = 0;

	if (out.json && out.array && !out.stream) {
		int flags = out.pretty ? JSON_C_TO_STRING_PRETTY |
			JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN;

		if (fprintf(out.f, "%s\n",
			    json_object_to_json_string_ext(out.array, flags)) < 0)
			ret = -1;
	}
	if (out.array) {
		json_object_put(out.array);
		out.array = NULL;
	}
	if (fflush(out.f))
		ret = -1;
	return ret;
}
