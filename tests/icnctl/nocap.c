// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl-nocap - run a command with no capabilities
 *
 * The icnctl tests use it to see the permission error of a change without
 * needing a second user account: it drops every capability from the
 * bounding set (so that exec as root does not grant them again), clears
 * the effective, permitted and inheritable sets and executes its
 * arguments.
 */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (argc < 2) {
		fprintf(stderr, "usage: icnctl-nocap COMMAND [ARGS...]\n");
		return 2;
	}
	for (int cap = 0; cap < 64; cap++)
		prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);	/* EINVAL past the last */
	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capset, &hdr, data)) {
		perror("icnctl-nocap: capset");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("icnctl-nocap: exec");
	return 127;
}
