/* SPDX-License-Identifier: MIT */
/*
 * The EP object and its layouts, shared by ep.c (routing on the host) and
 * ep_dev.c (routing on the card, M890_EP_F_DEVICE_ROUTING).
 */
#ifndef M890_EP_INTERNAL_H
#define M890_EP_INTERNAL_H

#include <stdatomic.h>

#include "internal.h"

#define EP_MAX_TOKENS	65536u
#define EP_MAX_HIDDEN	65536u
#define EP_MAX_EXPERTS	65536u
#define EP_MAX_TOPK	64u
#define EP_MAX_RANKS	64	/* as communicators */

struct ep_rank {
	struct m890_buffer *qe;		/* MX elements, T rows (MX only) */
	struct m890_buffer *qs;		/* MX scales, T rows (MX only) */
	struct m890_buffer *packed;	/* T rows of row_bytes (MX only) */
	struct m890_buffer *send;	/* T * k rows of row_bytes */
	struct m890_buffer *fetch;	/* T * k rows of H bf16 */
};

struct m890_ep {
	struct m890_obj obj;
	struct m890_comm *comm;
	struct m890_ep_config cfg;
	struct m890_ep_info info;
	uint32_t slots;			/* T * k */
	uint32_t scale_bytes;		/* H / 32 for MX, else 0 */
	bool per_rank;			/* peers' buffers by registration */
	int nlocal;			/* ranks in this process */
	struct ep_rank *r;		/* [n], the local ranks' filled */
	/*
	 * Live layouts: m890_ep_layout_create() adds one while it holds
	 * the object, m890_ep_layout_destroy() drops it, each on any
	 * thread; m890_ep_destroy() reads it before and after taking the
	 * object out of the registry (see there).
	 */
	atomic_uint layouts;
	struct ep_dev *dev;		/* M890_EP_F_DEVICE_ROUTING, else NULL */
};

struct ep_layout_rank {
	struct m890_buffer *host;	/* the index lists, mapped */
	uint32_t *gidx, *sidx, *ridx, *counts;
	float *w;
	uint32_t tokens;
	uint32_t *off;			/* [n + 1]: send rows per destination */
	struct m890_stream *last_stream;	/* last work using the lists */
	uint64_t last_seqno;
};

struct m890_ep_layout {
	struct m890_obj obj;
	struct m890_ep *ep;
	bool dispatched;
	uint32_t *counts;		/* [num_experts], every rank's experts */
	struct ep_layout_rank *r;	/* [n], the local ranks' filled */
	/* Device routing: the dispatch this layout holds. */
	uint64_t epoch;			/* 0: none yet */
	uint32_t tokens[EP_MAX_RANKS];	/* its token counts, per rank */
	bool combined;			/* its combine was enqueued */
};

/* ep_dev.c */
m890_status_t m890_ep_dev_setup(struct m890_ep *ep);
m890_status_t m890_ep_dev_deregister(struct m890_ep *ep);
void m890_ep_dev_free(struct m890_ep *ep);
m890_status_t m890_ep_dev_counts(struct m890_ep_layout *lo, uint32_t *counts);


#endif /* M890_EP_INTERNAL_H */
