/* SPDX-License-Identifier: MIT */
/*
 * libm890 expert parallelism: the MoE dispatch and combine over a
 * communicator, routed on the host or on the card.  Part of <m890.h>.
 */
#ifndef M890_EP_H
#define M890_EP_H

#include <stdint.h>

#include "m890_coll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Expert parallelism: MoE dispatch and combine                        */
/* ------------------------------------------------------------------ */

/**
 * DOC: Expert parallelism
 *
 * An EP object runs the token dispatch and combine of a mixture-of-experts
 * layer over a communicator of n ranks (one card each), of any kind: every
 * rank in this process (m890_comm_create()), one process per card
 * (m890_comm_create_rank()) or cards in several processes or VMs
 * (m890_comm_create_fabric()).  Expert e lives on rank e / L, as local
 * expert e % L, with L = num_experts / n.
 *
 * Arrays of the calls have one entry per rank this process holds, in
 * local order: rank order for m890_comm_create(), the one rank for
 * m890_comm_create_rank(), the order of the fabric config's devices for
 * m890_comm_create_fabric().  On the last two ("per-rank" communicators)
 * every call below that takes the EP object is collective: every process
 * calls it, in the same order, and the receive and expert output buffers
 * the peers reach must be registered with m890_comm_register() (any
 * registration number: each rank tells the others its own).
 *
 * Shapes and units, per rank (T = max_tokens_per_rank, H = hidden,
 * C = expert capacity, k = top_k):
 *   x           HBM, T rows of H bf16 (row t at t * 2H bytes): the tokens.
 *   topk_idx    host, num_tokens * k int32: expert ids, -1 = none; the ids
 *               of one token must differ.
 *   topk_w      host, num_tokens * k float: the combine weights.
 *   recv        HBM, L * C rows of row_bytes: expert-major receive buffer;
 *               local expert l owns rows [l * C, l * C + counts[l]).  A row
 *               holds H payload elements (bf16, or MX elements: MXFP8 one
 *               byte each, MXFP4 two per byte with the even element in bits
 *               3:0) followed, for MX payloads, by H / 32 E8M0 scale bytes.
 *               Rows of an expert are ordered by source rank, then token,
 *               then top-k slot.  Rows past the count are not written.
 *   counts      HBM, L uint32: rows received per local expert.
 *   expert_out  HBM, L * C rows of H bf16, the same row order as recv: the
 *               experts' outputs, written by the caller between dispatch
 *               and combine.
 *   out         HBM, T rows of H bf16: the combine result, for each token
 *               t < num_tokens: the binary32 sum, in ascending top-k slot,
 *               of weight * expert_out row (rounded once to bf16), exactly
 *               as m890_reduce_host(); a token with no expert gets zeros.
 *
 * Where the work runs (this section and the next: routing on the host,
 * the default; M890_EP_F_DEVICE_ROUTING, below, routes on the card): the
 * card quantizes (MX_QUANT), packs rows (COPY_2D), gathers the rows for
 * each destination (GATHER), writes them straight into the peers' receive
 * buffers through the fabric (SCATTER), fetches expert outputs from the
 * peers (GATHER from their windows) and sums them (REDUCE); the host only
 * enqueues.  The routing layout - the per-expert counts and each row's
 * slot - is computed on the host from the topk_idx arrays the caller
 * passes (a spec 1.0 card has no counting packet; a 1.1 card's MOE_ROUTE
 * is what device routing uses); the index lists and counts are put in
 * host memory the cards read by DMA, and each card copies its counts into
 * @counts.  Capacity is therefore checked before anything is enqueued.
 *
 * Host metadata round (per-rank communicators): a rank's slots depend on
 * how many rows every rank sends to each expert, which only the other
 * processes know.  So m890_ep_dispatch() first exchanges one record per
 * rank between the processes (its status, token count, registration of
 * @recv and its row count per expert: 16 + 4 * num_experts bytes), the
 * counterpart of DeepEP's notify step in its normal mode; the records
 * move through the cards (SIGNAL/WAIT and COPY through the communicator's
 * windows; there is no network) and the call blocks until every rank's
 * record arrived, up to the communicator's timeout.  Every process then
 * holds the same n x num_experts count matrix: the capacity check gives
 * the same verdict at every rank, m890_ep_layout_counts() the counts of
 * every expert, and a rank whose own checks failed makes the call fail
 * at every rank with nothing enqueued.  m890_ep_combine() exchanges only
 * a status and the registration of @expert_out (16 bytes per rank), and
 * m890_ep_create() the configuration, which must be the same at every
 * rank.  A call refused before its round (an invalid handle, a NULL
 * array, a layout of another EP object or without a dispatch, the
 * communicator's sticky error) does not take part in it: the peers'
 * calls then time out naming this rank.  Everything else - the index lists, quantization, the transfers,
 * the sums - is computed by each process for its own ranks and runs on
 * the cards as above.  With every rank in one process there is no round.
 *
 * Determinism: the slots depend only on the routing, the transfers of
 * different sources never overlap, and REDUCE sums in a fixed order, so
 * repeated runs give bit-identical recv, counts and out.
 */
/**
 * typedef m890_ep_t - handle of an EP object over a communicator, from
 * m890_ep_create(); destroyed with m890_ep_destroy().
 */
typedef struct m890_ep *m890_ep_t;
/**
 * typedef m890_ep_layout_t - handle of the routing layout of one dispatch,
 * consumed by its combine; from m890_ep_layout_create(), destroyed with
 * m890_ep_layout_destroy().
 */
typedef struct m890_ep_layout *m890_ep_layout_t;

/**
 * struct m890_ep_config - shape of an EP object.  Start from
 * M890_EP_CONFIG_INIT, then set the fields.
 * @size: sizeof(struct m890_ep_config), set by the initializer; checked.
 * @magic: M890_EP_CONFIG_MAGIC, set by the initializer; checked.
 * @version: M890_EP_CONFIG_VERSION, set by the initializer; checked.
 * @flags: 0, or M890_EP_F_DEVICE_ROUTING (below).
 * @max_tokens_per_rank: T, 1 .. 65536.
 * @hidden: H, elements per token, a multiple of 32, 32 .. 65536.
 * @num_experts: a multiple of the ranks, up to 65536.
 * @top_k: 1 .. 64.
 * @dispatch_type: M890_TYPE_BF16, M890_TYPE_MXFP8 or M890_TYPE_MXFP4: the
 *                 payload of recv (the combine is always bf16).
 * @expert_capacity: C, rows per local expert; 0 = n * T, which no routing
 *                   can overflow.
 * @reserved: 0.
 */
struct m890_ep_config {
	uint32_t size;
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t max_tokens_per_rank;
	uint32_t hidden;
	uint32_t num_experts;
	uint32_t top_k;
	uint32_t dispatch_type;
	uint32_t expert_capacity;
	uint64_t reserved;
};
/**
 * M890_EP_CONFIG_MAGIC - struct m890_ep_config's @magic ("M8EP").
 */
#define M890_EP_CONFIG_MAGIC	0x4d384550u	/* "M8EP" */
/**
 * M890_EP_CONFIG_VERSION - current version of struct m890_ep_config.
 */
#define M890_EP_CONFIG_VERSION	1
/**
 * M890_EP_CONFIG_INIT - initializer of struct m890_ep_config: host
 * routing, bf16 payload, capacity n * T; the shape fields are 0 and must
 * be set.
 */
#define M890_EP_CONFIG_INIT \
	{ .size = sizeof(struct m890_ep_config), \
	  .magic = M890_EP_CONFIG_MAGIC, .version = M890_EP_CONFIG_VERSION, \
	  .flags = 0, .max_tokens_per_rank = 0, .hidden = 0, \
	  .num_experts = 0, .top_k = 0, .dispatch_type = M890_TYPE_BF16, \
	  .expert_capacity = 0, .reserved = 0 }

/**
 * struct m890_ep_info - sizes derived from the configuration, in bytes
 * unless stated.  Buffers passed to dispatch and combine must be at least
 * this large.
 * @num_ranks: n, the communicator's ranks.
 * @num_local_experts: L = num_experts / n, experts per rank.
 * @expert_capacity: C, rows per local expert (the configured value, or
 *                   n * T for 0).
 * @row_bytes: bytes of one recv row.
 * @elem_bytes: its payload part: H * 2 (BF16), H (MXFP8) or H / 2
 *              (MXFP4); the scales, row_bytes - elem_bytes bytes, follow.
 * @reserved: 0.
 * @x_bytes: size of each x buffer, T * H * 2.
 * @out_bytes: size of each out buffer, T * H * 2.
 * @recv_bytes: size of each recv buffer, L * C * row_bytes.
 * @expert_out_bytes: size of each expert_out buffer, L * C * H * 2.
 * @counts_bytes: size of each counts buffer, L * 4.
 * @scratch_bytes: HBM the EP object itself holds on each card.
 */
struct m890_ep_info {
	uint32_t num_ranks;
	uint32_t num_local_experts;
	uint32_t expert_capacity;
	uint32_t row_bytes;
	uint32_t elem_bytes;
	uint32_t reserved;
	uint64_t x_bytes;
	uint64_t out_bytes;
	uint64_t recv_bytes;
	uint64_t expert_out_bytes;
	uint64_t counts_bytes;
	uint64_t scratch_bytes;
};

/**
 * m890_ep_create() - create an EP object over a communicator.
 * @comm: the communicator, any kind; it must outlive the object.
 * @config: the shape (see struct m890_ep_config), the same at every rank.
 * @ep: receives the handle.
 *
 * Allocates per local card the HBM scratch (packed rows, send rows,
 * fetched expert outputs) and a host area for the routing layout.  The
 * communicator must outlive the object.  Collective on a per-rank
 * communicator: every process passes the same @config.
 * M890_EP_F_DEVICE_ROUTING needs M890_CAP_ROWS, M890_CAP_ATOMICS and
 * M890_CAP_ENGINES on every card.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT (config, limits, num_experts not a
 * multiple of the ranks, a rank whose config differs or whose creation
 * failed, named), M890_ERROR_OUT_OF_DEVICE_MEMORY, M890_ERROR_TIMEOUT
 * naming the ranks that did not take part, the communicator's sticky
 * error; M890_ERROR_NOT_SUPPORTED for device routing on a card without
 * the spec 1.1 capabilities.
 */
m890_status_t m890_ep_create(m890_comm_t comm,
			     const struct m890_ep_config *config,
			     m890_ep_t *ep);

/**
 * m890_ep_destroy() - free @ep; its enqueued work must have completed.
 * @ep: the EP object.
 *
 * With M890_EP_F_DEVICE_ROUTING on a communicator of several processes,
 * this is collective, like m890_ep_create(): every rank destroys its EP
 * objects in the same order, and the peers drop their windows on the
 * object's buffers.  After m890_comm_abort() or a failure of the
 * communicator it is local, and those windows stay until
 * m890_comm_destroy().
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT (layouts of @ep still
 * exist); a failed withdrawal from the peers is returned with
 * @ep freed all the same.
 */
m890_status_t m890_ep_destroy(m890_ep_t ep);

/**
 * m890_ep_get_info() - the sizes derived from an EP object's configuration.
 * @ep: the EP object.
 * @info: receives the sizes (see struct m890_ep_info).
 *
 * Return: M890_SUCCESS, or the argument errors.
 */
m890_status_t m890_ep_get_info(m890_ep_t ep, struct m890_ep_info *info);

/**
 * m890_ep_layout_create() - create a routing layout for an EP object.
 * @ep: the EP object.
 * @layout: receives the handle: host memory for the index lists of one
 *          dispatch and its combine.
 *
 * A layout can be reused: dispatch first waits for the work that last
 * used it.  Free every layout before m890_ep_destroy().
 *
 * Return: M890_SUCCESS; the allocation errors.
 */
m890_status_t m890_ep_layout_create(m890_ep_t ep, m890_ep_layout_t *layout);

/**
 * m890_ep_layout_destroy() - free a layout.
 * @layout: the handle; invalid afterwards.  Its work must have completed.
 *
 * Return: M890_SUCCESS, or the handle's error.
 */
m890_status_t m890_ep_layout_destroy(m890_ep_layout_t layout);

/**
 * m890_ep_layout_counts() - host copy of the per-expert counts of the
 * layout's last dispatch.
 * @layout: a layout that has held a dispatch.
 * @counts: receives num_experts uint32, expert e at index e (global
 *          numbering).
 *
 * Routing on the host: every rank's experts, also on a per-rank
 * communicator (the dispatch's metadata round brought them), known once
 * m890_ep_dispatch() returned.  Routing on the card
 * (M890_EP_F_DEVICE_ROUTING): the experts of the ranks this process
 * holds, copied from their cards' expert counts (the true counts, also
 * after a capacity error); on a per-rank communicator the other ranks'
 * experts are UINT32_MAX.  The call reads the cards without waiting for
 * the dispatch: synchronize its streams first.  The counts are those of
 * the layout's half, which the dispatch after next of the EP object
 * writes again.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT before the first
 * dispatch or for a NULL @counts.
 */
m890_status_t m890_ep_layout_counts(m890_ep_layout_t layout,
				    uint32_t *counts);

/**
 * m890_ep_dispatch() - enqueue the dispatch of the local ranks' tokens.
 * Arrays have one entry per local rank (see above; local rank l's
 * objects are on its card).
 * @ep: the EP object (host routing).
 * @layout: filled with this dispatch's routing; pass it to the combine.
 * @x: per local rank, the tokens (see the shapes above), HBM.
 * @num_tokens: per local rank, 0 .. T tokens; the ranks' counts may
 *              differ.
 * @topk_idx: per local rank, a host array of num_tokens[l] * k expert ids
 *            (-1 = none).
 * @topk_w: per local rank, a host array of num_tokens[l] * k weights.
 * @recv: per local rank, the HBM receive buffer (see above); registered
 *        on a per-rank communicator.
 * @counts: per local rank, the HBM buffer of L uint32 row counts.
 * @streams: per local rank, its stream.
 *
 * On a per-rank communicator the call first runs the metadata round (see
 * above) and blocks until every rank joined it.  It returns once the work
 * is enqueued; m890_comm_synchronize() (or the streams) waits for it.
 * @x must not change and @recv must not be read until then.
 *
 * Return: M890_SUCCESS once enqueued; on failure nothing is enqueued, at
 * every rank alike: M890_ERROR_CAPACITY when an
 * expert would receive more than C rows (the message names the expert,
 * its count and C); M890_ERROR_INVALID_ARGUMENT for NULL arrays, token
 * counts above T, expert ids out of range or repeated within a token,
 * buffers smaller than the sizes of m890_ep_get_info(), host buffers, a
 * @recv not registered (at the other ranks: "rank N refused the call");
 * M890_ERROR_DEVICE_MISMATCH; M890_ERROR_TIMEOUT (sticky) naming the
 * ranks whose record did not arrive; the communicator's and streams'
 * sticky errors.
 */
m890_status_t m890_ep_dispatch(m890_ep_t ep, m890_ep_layout_t layout,
			       const m890_buffer_t *x,
			       const uint32_t *num_tokens,
			       const int32_t *const *topk_idx,
			       const float *const *topk_w,
			       const m890_buffer_t *recv,
			       const m890_buffer_t *counts,
			       const m890_stream_t *streams);

/**
 * m890_ep_combine() - enqueue the combine of a layout's dispatch.
 * @ep: the EP object of the dispatch.
 * @layout: the layout the dispatch filled.
 * @expert_out: per local rank, the HBM buffer of the experts' outputs
 *              (L * C rows of H bf16 in recv's row order); registered on a
 *              per-rank communicator.
 * @out: per local rank, the HBM result buffer, T rows of H bf16.
 * @streams: per local rank, its stream.
 *
 * Each token's owner fetches the expert outputs of its token from
 * @expert_out (on the experts' ranks) and writes the weighted sum to
 * @out.  Arrays as for m890_ep_dispatch().  @expert_out must not change
 * until the work has completed.
 *
 * Return: M890_SUCCESS once enqueued; the errors of m890_ep_dispatch();
 * M890_ERROR_INVALID_ARGUMENT when @layout holds no dispatch of @ep.
 */
m890_status_t m890_ep_combine(m890_ep_t ep, m890_ep_layout_t layout,
			      const m890_buffer_t *expert_out,
			      const m890_buffer_t *out,
			      const m890_stream_t *streams);

/**
 * DOC: EP with routing on the card (M890_EP_F_DEVICE_ROUTING)
 *
 * The mode of expert parallelism for serving, in the spirit of DeepEP's
 * low-latency kernels, on cards of spec 1.1 (CAPS ROWS, ATOMICS and
 * ENGINES; hardware spec §7.13, §7.14, §10).  The top-k ids and weights
 * stay in HBM, the routing is computed on the card (MOE_ROUTE), each
 * token goes once to each rank that holds one of its experts (one
 * COPY_ROWS over every peer's window, quantizing on the way), arrival is
 * one counter per rank fed by posted atomic adds, and the combine pulls
 * and sums one row per token and rank straight from the peers' windows
 * (one REDUCE).  No call blocks the host on the other ranks, on any kind
 * of communicator: everything the ranks must agree on is agreed by
 * m890_ep_create().  The receive regions belong to the EP object, are
 * registered once and double-buffered: dispatch k uses half k % 2.
 *
 * Per dispatch, on local rank l's card (T = max_tokens_per_rank, n ranks,
 * L local experts, C = expert_capacity, H = hidden, k = top_k):
 *
 *   x          HBM, T rows of H bf16: the tokens (the caller's).
 *   topk_idx   HBM, T rows of k int32 (-1: none; else < num_experts,
 *              distinct within a token): the caller's.
 *   topk_w     HBM, T rows of k float: the caller's.
 *   rows       (the object's) n * T rows of row_bytes: row s * T + i is
 *              the i-th token rank s sent to this rank, in the payload
 *              format (bf16, or MX elements then scales); a source's
 *              tokens keep their order.  Rows past a source's count are
 *              not written.
 *   meta       (the object's) n * T rows of 8 * k bytes: the sender's
 *              top-k ids (k int32) then weights (k float) of that token.
 *   expert_count, expert_rows, expert_weight  (the object's) L uint32,
 *              L * C uint32 and L * C float: for local expert e, its rows
 *              expert_rows[e * C .. + count) (row numbers into rows, in
 *              (source, token, slot) order) and their weights.
 *   partial    (the object's) n * T rows of H bf16: the combine's input,
 *              written by the caller between dispatch and combine: for
 *              row s * T + i, the sum over this rank's experts of that
 *              token of weight * expert output (the expert computation
 *              writes it; rows without a token are not read).
 *   out        HBM, T rows of H bf16, the caller's: for token t the sum,
 *              in binary32 in ascending top-k slot, of the partial rows
 *              of the ranks its experts are on (each rank once, at the
 *              first slot that names it), rounded once to bf16; zeros
 *              for a token without experts.  Bit-exact and repeatable.
 *
 * m890_ep_get_recv() gives the buffers and byte offsets of a dispatch's
 * half.  Errors found on the card are the streams' sticky errors, named
 * by the next call or synchronize: an expert id out of range
 * (M890_ERROR_DEVICE_ERROR), more than C rows for a local expert
 * (M890_ERROR_CAPACITY, naming the rank; the counts, which
 * m890_ep_layout_counts() reads, are still right and show the expert), a
 * peer that does not arrive (the driver's job timeout;
 * m890_comm_synchronize() names the missing ranks).
 *
 * Cost: per rank, a dispatch is 9 packets (MOE_ROUTE SEND, a WAIT, three
 * RELAXED COPY_ROWS, a SIGNAL SET and a SIGNAL ADD to every rank, a WAIT,
 * MOE_ROUTE RECV) and a combine 3 (a SIGNAL ADD to every rank, a WAIT, a
 * REDUCE); the combine pulls its rows from the peers, so its REDUCE pays
 * one switch round trip (1 us, spec §10).  Dispatches and combines of one
 * EP object alternate (m890_ep_dispatch_device()); two micro-batches in
 * flight take two EP objects.
 */
/**
 * M890_EP_F_DEVICE_ROUTING - struct m890_ep_config flag: route on the card
 * (see the section above); the object then takes m890_ep_dispatch_device()
 * and m890_ep_combine_device() instead of the host-routed calls.
 */
#define M890_EP_F_DEVICE_ROUTING	(1u << 0)

/**
 * struct m890_ep_recv - where a device-routed dispatch left its results
 * on local rank l's card (see above).  Each buffer is the EP object's;
 * the *_offset fields are the byte offsets of this dispatch's half.
 * @rows: the buffer of the received rows.
 * @rows_offset: byte offset of this half's n * T rows in @rows.
 * @meta: the buffer of the rows' top-k ids and weights.
 * @meta_offset: byte offset of this half's n * T meta rows in @meta.
 * @partial: the buffer of the partial rows the caller writes.
 * @partial_offset: byte offset of this half's n * T partial rows.
 * @experts: the buffer holding expert_count, expert_rows and
 *           expert_weight.
 * @expert_count_offset: byte offset of the L uint32 counts in @experts.
 * @expert_rows_offset: byte offset of the L * C uint32 row numbers.
 * @expert_weight_offset: byte offset of the L * C float weights.
 */
struct m890_ep_recv {
	m890_buffer_t rows;
	uint64_t rows_offset;
	m890_buffer_t meta;
	uint64_t meta_offset;
	m890_buffer_t partial;
	uint64_t partial_offset;
	m890_buffer_t experts;		/* expert_count, _rows, _weight */
	uint64_t expert_count_offset;
	uint64_t expert_rows_offset;
	uint64_t expert_weight_offset;
};

/**
 * m890_ep_dispatch_device() - enqueue a device-routed dispatch.
 * @ep: an EP object created with M890_EP_F_DEVICE_ROUTING.
 * @layout: receives this dispatch; pass it to m890_ep_get_recv() and
 *          m890_ep_combine_device().
 * @x: per local rank, the HBM token buffer, T rows of H bf16.
 * @num_tokens: per local rank, 0 .. T tokens (host values).
 * @topk_idx: per local rank, an HBM buffer of T rows of k int32 (see
 *            above), on the rank's card.
 * @topk_w: per local rank, an HBM buffer of T rows of k float.
 * @streams: per local rank, its stream.
 *
 * Arrays have one entry per local rank.  Returns once enqueued, without waiting for any other rank.  The
 * previous dispatch of @ep must have had its combine enqueued (the
 * halves alternate).
 *
 * Return: M890_SUCCESS once enqueued; on failure nothing is enqueued:
 * INVALID_ARGUMENT (a
 * host routing EP object, NULL arrays, counts above T, buffers too small
 * or not HBM, a dispatch without a combine before), DEVICE_MISMATCH,
 * the streams' and the communicator's sticky errors.
 */
m890_status_t m890_ep_dispatch_device(m890_ep_t ep, m890_ep_layout_t layout,
				      const m890_buffer_t *x,
				      const uint32_t *num_tokens,
				      const m890_buffer_t *topk_idx,
				      const m890_buffer_t *topk_w,
				      const m890_stream_t *streams);

/**
 * m890_ep_get_recv() - where a device-routed dispatch left its results.
 * @layout: the layout of the dispatch.
 * @l: the local rank, 0 .. local ranks - 1.
 * @recv: receives the buffers and offsets (see struct m890_ep_recv).
 *
 * Return: M890_SUCCESS; INVALID_ARGUMENT before a dispatch, for a host
 * routing layout or an @l out of range.
 */
m890_status_t m890_ep_get_recv(m890_ep_layout_t layout, int l,
			       struct m890_ep_recv *recv);

/**
 * m890_ep_combine_device() - enqueue the combine of a device-routed
 * dispatch.
 * @ep: the EP object of the dispatch.
 * @layout: the layout of m890_ep_dispatch_device().
 * @out: per local rank, the HBM result buffer, T rows of H bf16.
 * @streams: per local rank, its stream.
 *
 * Every rank tells its peers its partial rows are written, then pulls and
 * sums its tokens' rows from them into @out.
 *
 * Return: M890_SUCCESS once enqueued; the errors of
 * m890_ep_dispatch_device(); INVALID_ARGUMENT when @layout holds no
 * dispatch or was combined.
 */
m890_status_t m890_ep_combine_device(m890_ep_t ep, m890_ep_layout_t layout,
				     const m890_buffer_t *out,
				     const m890_stream_t *streams);

#ifdef __cplusplus
}
#endif

#endif /* M890_EP_H */
