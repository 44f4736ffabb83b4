// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl-json - check icnctl JSON output in the guest
 *
 * The guest has no JSON tool, so the icnctl tests pipe output into this:
 *   icnctl-json length        print the length of the top-level array
 *   icnctl-json INDEX KEY     print member KEY of element INDEX
 * Exit 1 if stdin is not valid JSON, not an array, or lacks the member.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

int main(int argc, char **argv)
{
	json_tokener *tok = json_tokener_new();
	json_object *root = NULL, *el, *v;
	char buf[4096];
	size_t n;

	if (argc < 2 || !tok)
		return 2;
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
	printf("%s\n", json_object_get_string(v));
	return 0;
}
