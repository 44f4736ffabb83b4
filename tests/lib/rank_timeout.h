/* SPDX-License-Identifier: MIT */
/*
 * The timeout of a test's one-process-per-card communicator.  Its ranks
 * are separate processes started at once; on a loaded 2-core host 64 of
 * them take seconds just to be scheduled and reach the bootstrap, so the
 * timeout grows by 250 ms per rank beyond 8 (3 s becomes 17 s at 64).
 * The tests that check a timeout names a dead peer wait this long.
 */
#ifndef M890_RANK_TIMEOUT_H
#define M890_RANK_TIMEOUT_H

#include <stdint.h>

static inline uint64_t rank_timeout_ns(int ranks, uint64_t base_ns)
{
	return base_ns + (ranks > 8 ? (uint64_t)(ranks - 8) * 250000000ull : 0);
}

#endif
