// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl-json - check icnctl JSON output in the guest
 *
 * The guest has no JSON tool, so the icnctl tests pipe output into this:
 *   icnctl-json length        print the length of the top-level array
 *   icnctl-json INDEX KEY     print member KEY of element INDEX
 *   icnctl-json lines         stdin is one JSON object per line (monitor
 *                             output): print the number of lines
 *   icnctl-json line N KEY    print member KEY of the object on line N
 * An array member is printed as its elements joined by commas ("1,2,3",
 * nothing when empty).  Exit 1 if stdin is not valid JSON, not an array (not one object per
 * line), or lacks the member.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

static void print_value(json_object *v)
{
	size_t i, n;

	if (!json_object_is_type(v, json_type_array)) {
		printf("%s\n", json_object_get_string(v));
		return;
	}
	n = json_object_array_length(v);
	for (i = 0; i < n; i++)
		printf("%s%s", i ? "," : "",
		       json_object_get_string(json_object_array_get_idx(v, i)));
	printf("\n");
}

/* One JSON object per line; lines counted from 0. */
static int lines_mode(int argc, char **argv)
{
	char line[8192];
	long want = argc > 3 ? atol(argv[2]) : -1;
	long n = 0;

	while (fgets(line, sizeof(line), stdin)) {
		json_object *obj, *v;

		if (!strchr(line, '\n')) {
			fprintf(stderr, "icnctl-json: line %ld is not terminated or too long\n", n);
			return 1;
		}
		obj = json_tokener_parse(line);
		if (!obj || !json_object_is_type(obj, json_type_object)) {
			fprintf(stderr, "icnctl-json: line %ld is not a JSON object\n", n);
			return 1;
		}
		if (n == want) {
			if (!json_object_object_get_ex(obj, argv[3], &v)) {
				fprintf(stderr, "icnctl-json: no member %s on line %ld\n",
					argv[3], n);
				return 1;
			}
			print_value(v);
		}
		json_object_put(obj);
		n++;
	}
	if (want < 0)
		printf("%ld\n", n);
	else if (want >= n) {
		fprintf(stderr, "icnctl-json: no line %ld\n", want);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	json_tokener *tok = json_tokener_new();
	json_object *root = NULL, *el, *v;
	char buf[4096];
	size_t n;

	if (argc < 2 || !tok)
		return 2;
	if (strcmp(argv[1], "lines") == 0)
		return lines_mode(argc, argv);
	if (strcmp(argv[1], "line") == 0) {
		if (argc < 4)
			return 2;
		return lines_mode(argc, argv);
	}
	while (!root && (n = fread(buf, 1, sizeof(buf), stdin)) > 0) {
		root = json_tokener_parse_ex(tok, buf, (int)n);
		if (!root && json_tokener_get_error(tok) != json_tokener_continue) {
			fprintf(stderr, "icnctl-json: %s\n",
				json_tokener_error_desc(json_tokener_get_error(tok)));
			return 1;
		}
	}
	if (!root || !json_object_is_type(root, json_type_array)) {
		fprintf(stderr, "icnctl-json: input is not a JSON array\n");
		return 1;
	}
	if (strcmp(argv[1], "length") == 0) {
		printf("%zu\n", json_object_array_length(root));
		return 0;
	}
	if (argc < 3)
		return 2;
	el = json_object_array_get_idx(root, (size_t)atoi(argv[1]));
	if (!el || !json_object_object_get_ex(el, argv[2], &v)) {
		fprintf(stderr, "icnctl-json: no member %s in element %s\n",
			argv[2], argv[1]);
		return 1;
	}
	print_value(v);
	return 0;
}
