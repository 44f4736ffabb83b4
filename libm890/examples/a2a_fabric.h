/* SPDX-License-Identifier: MIT */
/*
 * m890-a2a --fabric: the all-to-all over a communicator spanning the cards
 * of several VMs (a2a_fabric.c).
 */
#ifndef A2A_FABRIC_H
#define A2A_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct a2a_fabric_args - what m890-a2a --fabric runs.
 * @comm_id: communicator id, non-zero, the same in every VM.
 * @fids: fabric id of each rank, in rank order.
 * @nranks: entries in @fids.
 * @ncards: local cards taking part (-1: all of this VM).
 * @block: bytes each rank sends to each rank.
 * @timeout_ns: setup and completion timeout.
 * @hold: join, then sleep until killed (never run the collective).
 */
struct a2a_fabric_args {
	uint64_t comm_id;
	uint32_t fids[64];
	int nranks;
	int ncards;
	uint64_t block;
	uint64_t timeout_ns;
	bool hold;
};

/*
 * Fabric ids "0-3,8,9" into @fids (at most @max, each < 64): the count,
 * or -1 for a malformed list.
 */
int a2a_parse_ranks(const char *s, uint32_t *fids, int max);

/* Run it: 0 when every block received here matched, 1 otherwise. */
int a2a_fabric_run(const struct a2a_fabric_args *a);

#endif /* A2A_FABRIC_H */
