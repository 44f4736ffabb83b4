/* SPDX-License-Identifier: MIT */
/*
 * libm890 internal declarations shared by the library's source files.
 */
#ifndef M890_INTERNAL_H
#define M890_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "m890.h"
#include "drm/m890_accel.h"

#define M890_EXPORT __attribute__((visibility("default")))
#define M890_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Object types, also the magic stored first in every object. */
enum m890_obj_type {
	M890_OBJ_DEVICE = 0x4d384456,	/* "M8DV" */
	M890_OBJ_BUFFER = 0x4d384246,	/* "M8BF" */
	M890_OBJ_WINDOW = 0x4d385749,	/* "M8WI" */
	M890_OBJ_STREAM = 0x4d385354,	/* "M8ST" */
	M890_OBJ_EVENT = 0x4d384556,	/* "M8EV" */
	M890_OBJ_COMM = 0x4d38434f,	/* "M8CO" */
	M890_OBJ_EP = 0x4d384550,	/* "M8EP" */
	M890_OBJ_EP_LAYOUT = 0x4d38454c,	/* "M8EL" */
};

struct m890_obj {
	uint32_t type;		/* enum m890_obj_type; 0 once freed */
};

struct m890_device {
	struct m890_obj obj;
	int fd;
	struct drm_m890_device_info info;
	uint32_t minor;
	char node[32];
	/* Live objects of this device, to refuse closing it too early. */
	pthread_mutex_t lock;
	unsigned int children;
	/* Imported peer GEM handles: PRIME gives the same handle for the
	 * same dma-buf, so imports are reference counted per handle. */
	struct m890_import *imports;
};

struct m890_import {
	struct m890_import *next;
	uint32_t handle;
	unsigned int refs;	/* windows holding @handle */
};

struct m890_buffer {
	struct m890_obj obj;
	struct m890_device *dev;
	uint32_t handle;
	unsigned int flags;	/* M890_MEM_* */
	uint64_t bytes;		/* requested */
	uint64_t alloc_bytes;	/* as rounded by the driver */
	uint64_t va;
	uint64_t mmap_offset;
	void *map;
	/*
	 * Unique in the process and never reused.  A freed buffer's
	 * address, GEM handle and VA can all come back for the next one,
	 * so registrations and cached windows match on this as well.
	 */
	uint64_t serial;
};

struct m890_window {
	struct m890_obj obj;
	struct m890_device *dev;	/* importing device */
	struct m890_import *import;
	uint64_t bytes;
	uint64_t va;
	uint32_t peer_fabric_id;
};

struct m890_stream {
	struct m890_obj obj;
	struct m890_device *dev;
	uint32_t queue_id;
	uint32_t syncobj;
	uint32_t flags;
	uint64_t timeout_ns;
	uint64_t last_seqno;	/* last submitted point, 0 = none */
	uint64_t done_seqno;	/* last point known complete and checked */
	m890_status_t async_error;
	char async_msg[256];
	union m890_packet *stage;
	uint32_t staged;
	uint32_t stage_cap;
	bool batch;		/* staging until m890_stream_batch(s, false) */
	bool relaxed;		/* data packets enqueued get M890_PKT_F_RELAXED */
};

struct m890_event {
	struct m890_obj obj;
	struct m890_device *dev;
	struct m890_buffer *ts;		/* host BO receiving the timestamp */
	volatile uint64_t *ts_ptr;
	uint32_t syncobj;	/* binary syncobj: fence of the recorded point */
	uint64_t gen;		/* records so far; the semaphore's last value */
	bool recorded;
	bool complete;
	m890_status_t status;
	int64_t wall_ns;
	uint64_t device_ns;
};

/*
 * status.c: the calling thread's last error.  m890_fail() sets it (the
 * message, and m890_get_last_error()'s copy with the status name);
 * m890_last_detail() is the message alone.
 */
#define M890_DETAIL_BYTES	512
m890_status_t m890_fail(m890_status_t st, const char *fmt, ...) M890_PRINTF(2, 3);
m890_status_t m890_errno_status(int err);
const char *m890_last_detail(void);
m890_status_t m890_fail_errno(int err, const char *fmt, ...) M890_PRINTF(2, 3);
/*
 * struct m890_saved_error - a copy of the last error's message, kept
 * across cleanup calls that may fail with messages of their own, or
 * carried to the peers as a rank's refusal.
 */
struct m890_saved_error {
	char detail[M890_DETAIL_BYTES];
};
void m890_error_save(struct m890_saved_error *e);
/* Fail with @st and the message saved in @e. */
m890_status_t m890_error_restore(m890_status_t st,
				 const struct m890_saved_error *e);
/*
 * Fail with @st and the message "<@fmt ...>: <cause>", the cause being
 * @e's message or, with @e NULL, the last error's: the one way a caller
 * puts its context in front of the failure of a call it made.
 */
m890_status_t m890_fail_wrap(m890_status_t st, const struct m890_saved_error *e,
			     const char *fmt, ...) M890_PRINTF(3, 4);
int64_t m890_monotonic_ns(void);

/* handle.c */
m890_status_t m890_obj_register(void *obj);
/*
 * Take @obj out of the registry and wait until no other thread's public
 * call holds it; then the caller frees it.  M890_ERROR_INVALID_HANDLE when
 * another thread got there first (it frees the object).
 */
m890_status_t m890_obj_unregister(void *obj);
bool m890_obj_valid(const void *obj, enum m890_obj_type type);
/*
 * Look @obj up as a live object of @type and, inside a public call
 * (M890_API_SCOPE), hold it until that call returns.
 */
m890_status_t m890_check(const void *obj, enum m890_obj_type type,
			 const char *what);
unsigned int m890_scope_enter(void);
void m890_scope_exit(unsigned int *base);
/*
 * First statement of every exported function: the handles it looks up
 * (m890_check()) stay held, so no other thread frees them, until it returns.
 */
#define M890_API_SCOPE \
	unsigned int m890_scope_base_ \
		__attribute__((cleanup(m890_scope_exit), unused)) = m890_scope_enter()
/*
 * The prologue of the getters: m890_check() of @obj, then
 * M890_ERROR_INVALID_ARGUMENT "@fn: NULL output" when @out is NULL.
 */
m890_status_t m890_check_out(const void *obj, enum m890_obj_type type,
			     const char *what, const void *out,
			     const char *fn);
void m890_device_get_child(struct m890_device *dev);
void m890_device_put_child(struct m890_device *dev);

/* stream.c */
m890_status_t m890_stream_wait_point(struct m890_stream *s, uint64_t seqno,
				     uint64_t timeout_ns);
m890_status_t m890_point_status(int fd, uint32_t syncobj, uint64_t seqno,
				int64_t *signal_ns);
m890_status_t m890_fence_status(int fd, uint32_t binary, int64_t *signal_ns);
m890_status_t m890_stream_enqueue(struct m890_stream *s,
				  const union m890_packet *pkts, uint32_t n);
m890_status_t m890_stream_batch(struct m890_stream *s, bool on);

/*
 * comm.c: the setup waits on another process or VM (a peer's export, a
 * rank joining the unique-id meeting) poll: sleep M890_PEER_POLL_NS, then
 * true to look again, or false once @deadline (CLOCK_MONOTONIC ns) passed.
 * See the definition for why they cannot block on an event.
 */
#define M890_PEER_POLL_NS	2000000
bool m890_peer_poll_again(int64_t deadline);

/* comm.c: what the collectives of ep.c share with all-to-all. */
struct m890_comm;
typedef m890_status_t (*m890_comm_xfer_fn)(void *ctx, int i, int j,
					   struct m890_stream *s);
m890_status_t m890_comm_usable(struct m890_comm *c);
m890_status_t m890_comm_need_all_local(struct m890_comm *c, const char *what);
m890_status_t m890_comm_set_error(struct m890_comm *c, m890_status_t st,
				  const char *msg);
int m890_comm_ranks(struct m890_comm *c);
struct m890_device *m890_comm_rank_device(struct m890_comm *c, int i);
/* VA on rank @i's device of rank @j's buffer @buf (a cached window). */
m890_status_t m890_comm_peer_va(struct m890_comm *c, int i, int j,
				struct m890_buffer *buf, uint64_t *va);
m890_status_t m890_comm_exchange(struct m890_comm *c,
				 struct m890_stream *const *streams,
				 const char *what, m890_comm_xfer_fn fn,
				 void *ctx);
/* @bytes from @src to @dst in COPY packets of at most the chunk size. */
m890_status_t m890_comm_copy(struct m890_comm *c, struct m890_stream *s,
			     uint64_t dst, uint64_t src, uint64_t bytes);

/* Most ranks of a communicator (one switch of 64 ports). */
#define M890_COMM_MAX_RANKS 64

/*
 * A collective that does not run m890_comm_exchange() (ep_dev.c) names
 * itself and, for m890_comm_synchronize()'s message after a failure of
 * local rank i, who rank i is still waiting for (@fn writes it to buf).
 */
typedef void (*m890_comm_describe_fn)(void *ctx, int i, char *buf, size_t len);
void m890_comm_set_describe(struct m890_comm *c, const char *what,
			    m890_comm_describe_fn fn, void *ctx);
/* Forget the describer of @ctx (an object going away). */
void m890_comm_clear_describe(struct m890_comm *c, void *ctx);

/* Per-rank communicator (m890_comm_create_rank/_fabric). */
bool m890_comm_is_per_rank(struct m890_comm *c);
int m890_comm_nlocal(struct m890_comm *c);       /* ranks in this process */
int m890_comm_local_rank(struct m890_comm *c, int l); /* global rank of local index l */
int m890_comm_local_index(struct m890_comm *c, int i); /* -1: not local */
/* Collective over all n ranks: local index l contributes @bytes at
 * mine[l]; on return @all (n * @bytes) holds rank r's at r * @bytes,
 * identical in every process.  Any size (split into rounds).  Blocks
 * up to the communicator's timeout; on timeout fails naming the ranks
 * that did not arrive (and fabric ids for the fabric kind); abort
 * releases it.  @what names the calling collective in errors.  Also
 * works on m890_comm_create communicators (then a plain copy). */
m890_status_t m890_comm_allgather_host(struct m890_comm *c, const char *what,
                                       const void *const *mine, size_t bytes,
                                       void *all);
/* Registration of @buf by local rank i: its index (the k-th
 * m890_comm_register of rank i is paired with every peer's k-th). */
m890_status_t m890_comm_reg_find(struct m890_comm *c, int i,
                                 struct m890_buffer *buf, unsigned int *index);
/* VA on local rank i's card of rank j's @index-th registered buffer and
 * its size (window opened if needed; j == i: the buffer's own VA). */
m890_status_t m890_comm_reg_peer(struct m890_comm *c, int i, int j,
                                 unsigned int index, uint64_t *va,
                                 uint64_t *bytes);

/*
 * comm_meta.c: the records of m890_comm_allgather_host() (pure, unit
 * tested on the host).  A record fills one slot of a rank's metadata
 * region: a 64-byte header, then up to M890_META_PAYLOAD bytes of the
 * caller's data.  The header says which collective (@what), which
 * exchange round and piece it is and how long the whole contribution is,
 * so that ranks calling different collectives, or the same one with
 * different sizes, are told apart instead of mixing their data.
 */
#define M890_META_SLOT		4096u
#define M890_META_MAGIC		0x4d384d4430303031ull	/* "M8MD0001" */
#define M890_META_WHAT		24
struct m890_meta_hdr {
	uint64_t magic;
	uint64_t round;		/* exchange round, from 1, per communicator */
	uint64_t bytes;		/* whole contribution of the collective */
	uint64_t offset;	/* of this piece in it */
	int32_t rank;		/* the sender */
	uint32_t len;		/* bytes of this piece after the header */
	char what[M890_META_WHAT];	/* collective, NUL-terminated, cut */
};
#define M890_META_PAYLOAD	(M890_META_SLOT - sizeof(struct m890_meta_hdr))
void m890_meta_hdr_init(struct m890_meta_hdr *h, uint64_t round,
			const char *what, int rank, uint64_t bytes,
			uint64_t offset, uint32_t len);
/*
 * Check the @n records at @slots (@pitch bytes apart, rank j's at j *
 * @pitch) of round @round: every rank's header must name the same
 * collective and size as rank 0's, and the piece @offset, @len (@what
 * prefixes the message).  @fids (NULL: none) names fabric ids.
 * M890_ERROR_INVALID_ARGUMENT naming the ranks when ranks called
 * different collectives or passed different sizes (the same text in
 * every process, as every process sees the same records);
 * M890_ERROR_SYSTEM for a record that is not one (wrong magic, round or
 * rank: the exchange is out of step).  Message in @msg.
 */
m890_status_t m890_meta_check(int n, const void *slots, size_t pitch,
			      uint64_t round, const char *what,
			      uint64_t offset, uint32_t len,
			      const uint32_t *fids, char *msg, size_t msglen);

/*
 * coll_check.c: the records of all-to-all(v) and grouped send/recv and
 * their global checks (pure, unit tested on the host).  Every process
 * checks the same n records, so every rank fails the same way.
 */
#define M890_COLL_MSG 160
/*
 * struct m890_a2a_rec - one rank's part of an all-to-all(v).
 * @status: 0, or the m890_status_t of its local checks (then @msg).
 * @recv_index: its receive buffer's registration number (per-rank
 *              communicators).
 * @per_peer: m890_alltoall()'s bytes per peer; UINT64_MAX for alltoallv.
 * @send_bytes, @recv_bytes: the sizes of its buffers.
 * @rows: [4n] its send counts, send displacements, receive counts and
 *        receive displacements, each indexed by peer (bytes).
 */
struct m890_a2a_rec {
	int32_t status;
	uint32_t recv_index;
	uint64_t per_peer;
	uint64_t send_bytes;
	uint64_t recv_bytes;
	char msg[M890_COLL_MSG];
	uint64_t rows[];
};
size_t m890_a2a_rec_bytes(int n);
struct m890_a2a_rec *m890_a2a_rec_at(const void *recs, int n, int j);
/* Local refusals, equal per-peer sizes, counts, bounds; message in @msg. */
m890_status_t m890_a2a_check(int n, const void *recs, const char *what,
			     char *msg, size_t len);
/* struct m890_group_head - one rank's part of a grouped send/recv. */
struct m890_group_head {
	int32_t status;		/* as struct m890_a2a_rec */
	uint32_t reserved;
	uint64_t count;		/* its operations */
	char msg[M890_COLL_MSG];
};
/* struct m890_p2p_rec - one operation of a rank, in the caller's order. */
struct m890_p2p_rec {
	uint32_t kind;		/* enum m890_p2p_kind */
	int32_t peer;
	uint32_t recv_index;	/* receive buffer's registration number */
	uint32_t reserved;
	uint64_t offset;
	uint64_t bytes;
};
/* Local refusals; the largest count in @max_ops. */
m890_status_t m890_group_check_heads(int n, const struct m890_group_head *heads,
				     const char *what, uint64_t *max_ops,
				     char *msg, size_t len);
/* @ops: [n][max_ops]; kinds and peers, then matching per pair and size. */
m890_status_t m890_group_check(int n, const struct m890_group_head *heads,
			       const struct m890_p2p_rec *ops, uint64_t max_ops,
			       const char *what, char *msg, size_t len);
/* Rank @j's receive matched with rank @i's @k-th send to it, or NULL. */
const struct m890_p2p_rec *m890_group_match(int n,
					    const struct m890_group_head *heads,
					    const struct m890_p2p_rec *ops,
					    uint64_t max_ops, int i, int j,
					    uint64_t k);

/*
 * struct m890_dcoll_rec - one rank's part of a device collective (dcoll.c),
 * the same fields at every rank or the call fails everywhere.
 * @status, @msg: its local refusal (0: none).
 * @count: elements (reductions) or bytes.  @type, @op, @root, @algo: as
 * passed (@algo resolved from AUTO).  @recv_index: its receive buffer's
 * registration.  @scratch_index: the registration number of its scratch
 * (the next one when it has none yet).
 */
struct m890_dcoll_rec {
	int32_t status;
	uint32_t kind;
	uint64_t count;
	uint32_t type;
	uint32_t op;
	int32_t root;
	uint32_t algo;
	uint32_t recv_index;
	uint32_t scratch_index;
	char msg[M890_COLL_MSG];
};
/*
 * Refusals carried from a rank, then every rank's call against rank 0's
 * (and, for a @reduction, the scratch's registration number); the message
 * names the ranks, in @msg.
 */
m890_status_t m890_dcoll_check(int n, const struct m890_dcoll_rec *all,
			       bool reduction, const char *what, char *msg,
			       size_t len);
/* struct m890_group_sum - a rank's group on one communicator (group.c). */
struct m890_group_sum_call {
	char what[M890_META_WHAT];
	uint64_t bytes;			/* of its first agreement's record */
};
#define M890_GROUP_MAX_CALLS	64
struct m890_group_sum {
	int32_t status;			/* a local refusal, then @msg */
	uint32_t ncalls;
	char msg[M890_COLL_MSG];
	struct m890_group_sum_call call[M890_GROUP_MAX_CALLS];
};
/* Refusals, then the number and kinds of calls against rank 0's. */
m890_status_t m890_group_sum_check(int n, const struct m890_group_sum *all,
				   char *msg, size_t len);

/* coll.c: the local checks every collective of a communicator shares. */
/* Record a local refusal @st (the last error, "@what: " cut) once. */
void m890_coll_refuse(m890_status_t st, const char *what, int32_t *status,
		      char *msg);
/* Rank @i's stream: live, of its card, without a sticky error. */
m890_status_t m890_coll_check_stream(struct m890_comm *c, int i,
				     struct m890_stream *s, const char *what);
/* Rank @i's buffer @b (named @name in messages): live, of its card. */
m890_status_t m890_coll_check_buf(struct m890_comm *c, int i,
				  struct m890_buffer *b, const char *what,
				  const char *name);
/* VA on local rank @i's card of rank @j's receive buffer: @rb_j (this
 * process's) or, on a per-rank communicator, registration @index. */
m890_status_t m890_coll_recv_va(struct m890_comm *c, int i, int j,
				struct m890_buffer *rb_j, unsigned int index,
				uint64_t *va);

/* dcoll.c: the device collectives' per-communicator state. */
struct m890_dcoll;
/* Free @d (the communicator is going away; its work has completed). */
void m890_dcoll_free(struct m890_dcoll *d);
/* The communicator's slot for it (NULL until the first collective). */
struct m890_dcoll **m890_comm_dcoll(struct m890_comm *c);
/* Buffers local rank @i registered so far (the next one's number). */
unsigned int m890_comm_nreg(struct m890_comm *c, int i);

/*
 * group.c: m890_group_start() .. m890_group_end().  Inside a group each
 * collective records its arguments with m890_group_add() and returns;
 * m890_group_end() runs the calls of each communicator with the
 * communicator's group state set, which m890_comm_allgather_host() hands
 * to m890_group_gather().
 */
enum m890_gkind {
	M890_G_ALLREDUCE = 1,
	M890_G_REDUCE_SCATTER,
	M890_G_ALLGATHER,
	M890_G_BROADCAST,
	M890_G_BARRIER,
	M890_G_ALLTOALL,
	M890_G_ALLTOALLV,
	M890_G_SENDRECV,
};
/* A call's arguments; the arrays have nlocal entries (rows: nlocal * n). */
struct m890_gcall {
	enum m890_gkind kind;
	struct m890_comm *c;
	const m890_buffer_t *sb, *rb;
	const m890_stream_t *streams;
	const uint64_t *sc, *sd, *rc, *rd;
	const struct m890_p2p *ops;
	size_t nops;
	uint64_t count;			/* elements or bytes */
	int type, op, root;
	const struct m890_coll_opts *opts;
};
struct m890_group_state;
/* Inside m890_group_start() .. m890_group_end() on this thread. */
bool m890_group_active(void);
/* Record @g (arrays copied) for m890_group_end(). */
m890_status_t m890_group_add(const struct m890_gcall *g);
/* Keep an event record for m890_group_end(), after the group's calls. */
m890_status_t m890_group_record(m890_event_t ev, m890_stream_t s);
/* A record of @ev is kept by the open group. */
bool m890_group_records(m890_event_t ev);
/* m890_comm_allgather_host() while a group runs on @c. */
m890_status_t m890_group_gather(struct m890_group_state *gs,
				struct m890_comm *c, const char *what,
				const void *const *mine, size_t bytes, void *all);
/* The dry run: a call stops after its global checks (st = success). */
bool m890_group_dry(const struct m890_group_state *gs);
/* comm.c: the communicator's group state (NULL outside m890_group_end()). */
struct m890_group_state **m890_comm_group(struct m890_comm *c);
/* m890_comm_allgather_host() with no group in the way. */
m890_status_t m890_comm_allgather_now(struct m890_comm *c, const char *what,
				      const void *const *mine, size_t bytes,
				      void *all);
/* The calls stop after their global checks (a group's dry run). */
bool m890_comm_group_dry(struct m890_comm *c);

/* bootstrap.c */
struct m890_boot;
m890_status_t m890_boot_open(const char *path, int rank, int n,
			     uint64_t timeout_ns, struct m890_boot **out);
void m890_boot_close(struct m890_boot *b);
/* All-gather of @val and @fd (-1: none) of every rank: @vals[n], @fds[n]
 * (fds[own rank] = -1; the others are the caller's to close). */
m890_status_t m890_boot_allgather(struct m890_boot *b, uint64_t val, int fd,
				  uint64_t *vals, int *fds);

/* buffer.c */
m890_status_t m890_buffer_export_dmabuf(struct m890_buffer *buf, int *fd);
m890_status_t m890_window_from_dmabuf(struct m890_device *dev, int dmabuf,
				      uint64_t bytes, const char *peer_name,
				      struct m890_window **window);
m890_status_t m890_buffer_export_fabric(struct m890_buffer *buf, uint64_t key);
void m890_buffer_revoke_fabric(struct m890_buffer *buf);
int m890_window_import_fabric(struct m890_device *dev, uint32_t fabric_id,
			      uint64_t key, struct m890_window **window);
m890_status_t m890_buffer_create(struct m890_device *dev, uint64_t bytes,
				 unsigned int flags, struct m890_buffer **out);
m890_status_t m890_buffer_destroy(struct m890_buffer *buf);

/* mx.c: element codecs of M890_TYPE_MXFP4/MXFP8, for the unit test.
 * decode: value of @code (sign included), NaN for the E4M3 NaN codes;
 * encode: code of the nearest element value to @v (ties to even,
 * saturating, sign of zero kept), 0 for NaN. */
double m890_mx_decode_elem(enum m890_data_type mx_type, unsigned int code);
unsigned int m890_mx_encode_elem(enum m890_data_type mx_type, double v);

/*
 * mx.c and gemm.c: @a * @b rounded to binary32 on its own, as the card
 * rounds every product before the sum that uses it.  The volatile ends
 * the expression, so that no compiler fuses the product with an addition
 * into an FMA (-ffp-contract=fast with FMA hardware), whatever the flags
 * of the build (tests/unit/arith_agree_test.c builds both ways).
 * (float)((double)a * b) is not enough: GCC narrows it to a float
 * multiply, then fuses it.
 */
static inline float m890_f32_mul_rounded(float a, float b)
{
	volatile float p = a * b;

	return p;
}

#endif /* M890_INTERNAL_H */
