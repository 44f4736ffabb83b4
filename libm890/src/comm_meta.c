// SPDX-License-Identifier: MIT
/*
 * DOC: records of the collective metadata exchange
 *
 * m890_comm_allgather_host() (comm.c) moves each rank's contribution
 * through the cards in slots of M890_META_SLOT bytes: a struct
 * m890_meta_hdr, then one piece of the contribution.  This file builds
 * the header and checks the n records a round brought back; it has no
 * device code, so the host unit test runs it directly.
 *
 * Every process receives the same n records, and the checks only look at
 * the records (never at what the calling process expected), so a
 * disagreement produces the same message in every process.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

void m890_meta_hdr_init(struct m890_meta_hdr *h, uint64_t round,
			const char *what, int rank, uint64_t bytes,
			uint64_t offset, uint32_t len)
{
	memset(h, 0, sizeof(*h));
	h->magic = M890_META_MAGIC;
	h->round = round;
	h->bytes = bytes;
	h->offset = offset;
	h->rank = rank;
	h->len = len;
	/* Cut to the field, always NUL-terminated. */
	snprintf(h->what, sizeof(h->what), "%s", what ? what : "");
}

static const struct m890_meta_hdr *slot(const void *slots, size_t pitch, int j)
{
	return (const struct m890_meta_hdr *)((const char *)slots + (size_t)j * pitch);
}

/* " (fabric id N)" for rank @j when @fids is given, else "". */
static const char *fid_note(const uint32_t *fids, int j, char *buf, size_t len)
{
	if (!fids)
		return "";
	snprintf(buf, len, " (fabric id %u)", fids[j]);
	return buf;
}

m890_status_t m890_meta_check(int n, const void *slots, size_t pitch,
			      uint64_t round, const char *what,
			      uint64_t offset, uint32_t len,
			      const uint32_t *fids, char *msg, size_t msglen)
{
	const struct m890_meta_hdr *h0 = slot(slots, pitch, 0);
	char f0[24], fj[24];

	/* Records that belong to another round or rank: out of step. */
	for (int j = 0; j < n; j++) {
		const struct m890_meta_hdr *h = slot(slots, pitch, j);

		if (h->magic != M890_META_MAGIC || h->round != round ||
		    h->rank != j) {
			snprintf(msg, msglen,
				 "%s: metadata exchange round %" PRIu64 ": rank %d%s sent no record of this round (magic 0x%" PRIx64 ", round %" PRIu64 ", rank %d): the ranks are out of step",
				 what, round, j, fid_note(fids, j, fj, sizeof(fj)),
				 h->magic, h->round, h->rank);
			return M890_ERROR_SYSTEM;
		}
	}
	/* Another collective or another size than rank 0's. */
	for (int j = 1; j < n; j++) {
		const struct m890_meta_hdr *h = slot(slots, pitch, j);

		if (strncmp(h->what, h0->what, M890_META_WHAT) ||
		    h->bytes != h0->bytes) {
			snprintf(msg, msglen,
				 "%s: the ranks called different collectives or passed different sizes: rank 0%s called %.*s with %" PRIu64 " bytes of arguments, rank %d%s called %.*s with %" PRIu64,
				 what, fid_note(fids, 0, f0, sizeof(f0)),
				 M890_META_WHAT, h0->what, h0->bytes, j,
				 fid_note(fids, j, fj, sizeof(fj)),
				 M890_META_WHAT, h->what, h->bytes);
			return M890_ERROR_INVALID_ARGUMENT;
		}
	}
	/* This process's own record is one of them: it agrees too. */
	for (int j = 0; j < n; j++) {
		const struct m890_meta_hdr *h = slot(slots, pitch, j);

		if (h->offset != offset || h->len != len) {
			snprintf(msg, msglen,
				 "%s: metadata exchange round %" PRIu64 ": rank %d%s sent bytes %" PRIu64 "..+%u, expected %" PRIu64 "..+%u: the ranks are out of step",
				 what, round, j, fid_note(fids, j, fj, sizeof(fj)),
				 h->offset, h->len, offset, len);
			return M890_ERROR_SYSTEM;
		}
	}
	if (msglen)
		msg[0] = 0;
	return M890_SUCCESS;
}
