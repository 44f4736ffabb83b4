// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 device collectives and stream waits on events (guest)
 *
 * First a stream waits on the card for an event of another stream: the
 * waiting stream's copy must not run before the recorded work, which is
 * itself held on a semaphore the CPU releases later.
 *
 * Then the device collectives on every card, three times: every rank in
 * this process (m890_comm_create), the cards met through the switch
 * (m890_comm_create_fabric, in this process), and one process per card
 * (m890_comm_create_rank, forked children); with --vms the ranks are the
 * cards of several VMs.  Each checks, against a
 * host reference that sums in rank order in binary32 (bf16: rounded
 * once at the end):
 *   allreduce fp32 one-shot (several pieces), two-shot (several pieces,
 *   a count that is no multiple of the ranks), bf16 in place, count 0;
 *   reduce-scatter fp32 and bf16 in place; allgather, also in place;
 *   broadcast from the last rank, in place at the root; a barrier; and
 *   an allreduce whose completion event another stream waits on.
 * Every output byte is compared, bytes past the result must keep their
 * poison.  One process per card also checks the refusals every rank
 * must see alike (another count at rank 0, an unregistered receive
 * buffer at the last rank), an allreduce in step after them, and a peer
 * that exits: the others time out naming it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "rank_timeout.h"
#include "drv_param.h"

#define MAXN 64
#define POISON 0xa5u

struct tr {
	int rank;
	m890_device_t dev;
	m890_stream_t str, str2;
	m890_buffer_t sb, rb, other, hb;
	uint8_t *hp;
};

struct tc {
	m890_comm_t comm;
	int n, m;
	bool per_rank;
	uint64_t bytes;		/* of sb, rb and hb */
	struct tr *r;		/* [m] */
	float *ref;		/* reference, count elements */
};

static uint32_t hash(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/* Rank @j's element @e of round @round: mixed magnitudes and signs. */
static float val(int j, uint64_t e, int round)
{
	uint32_t h = hash((uint32_t)e * 2654435761u ^ (uint32_t)(j * 40503 + round * 977));
	int mant = (int)(h % 2001) - 1000;
	int ex = (int)((h >> 12) % 24) - 12;

	if ((h >> 20) % 97 == 0)
		return -0.0f;
	return (float)mant * (ex >= 0 ? (float)(1u << ex) : 1.0f / (float)(1u << -ex));
}

/* As val(), exactly representable in bf16. */
static uint16_t val16(int j, uint64_t e, int round)
{
	return m890_float_to_bf16(val(j, e, round));
}

static unsigned int esz(enum m890_data_type t)
{
	return t == M890_TYPE_BF16 ? 2 : 4;
}

/* Element @e of rank @j's operand, as the card reads it. */
static float operand(enum m890_data_type t, int j, uint64_t e, int round)
{
	return t == M890_TYPE_BF16 ? m890_bf16_to_float(val16(j, e, round)) :
				     val(j, e, round);
}

/* The rank-order sum of elements [first, first + count) into c->ref. */
static void reference(struct tc *c, enum m890_data_type t, uint64_t first,
		      uint64_t count, int round)
{
	for (uint64_t e = 0; e < count; e++) {
		float acc = 0.0f;

		for (int j = 0; j < c->n; j++)
			acc = acc + operand(t, j, first + e, round);
		c->ref[e] = acc;
	}
}

/* Host pattern of rank @r's operand elements [first, +count) at hp[at]. */
static void put_operand(struct tr *r, enum m890_data_type t, uint64_t at,
			uint64_t first, uint64_t count, int round)
{
	for (uint64_t e = 0; e < count; e++) {
		if (t == M890_TYPE_BF16) {
			uint16_t v = val16(r->rank, first + e, round);

			memcpy(r->hp + at + 2 * e, &v, 2);
		} else {
			float v = val(r->rank, first + e, round);

			memcpy(r->hp + at + 4 * e, &v, 4);
		}
	}
}

/* hp -> @dst [0, bytes) and poison -> rb for every local rank; waits. */
static int stage(struct tc *c, m890_buffer_t *dst_of, uint64_t bytes)
{
	for (int l = 0; l < c->m; l++) {
		struct tr *r = &c->r[l];

		memset(r->hp + c->bytes, POISON, c->bytes);
		if (m890_memcpy_htod(r->str, r->rb, 0, r->hb, c->bytes, c->bytes) ||
		    (bytes && m890_memcpy_htod(r->str, dst_of ? dst_of[l] : r->sb, 0,
					       r->hb, 0, bytes)) ||
		    m890_stream_synchronize(r->str)) {
			printf("# rank %d stage: %s\n", r->rank, m890_get_last_error());
			return 0;
		}
	}
	return 1;
}

/* rb -> hp for every local rank after the streams finished. */
static int fetch(struct tc *c)
{
	for (int l = 0; l < c->m; l++) {
		struct tr *r = &c->r[l];

		if (m890_memcpy_dtoh(r->str, r->hb, 0, r->rb, 0, c->bytes) ||
		    m890_stream_synchronize(r->str)) {
			printf("# rank %d fetch: %s\n", r->rank, m890_get_last_error());
			return 0;
		}
	}
	return 1;
}

static int sync_all(struct tc *c)
{
	m890_stream_t s[MAXN];

	for (int l = 0; l < c->m; l++)
		s[l] = c->r[l].str;
	if (m890_comm_synchronize(c->comm, s)) {
		printf("# synchronize: %s\n", m890_get_last_error());
		return 0;
	}
	return 1;
}

/* hp[at ..] holds @count elements equal, bit for bit, to c->ref. */
static uint64_t wrong_elems(const struct tr *r, enum m890_data_type t,
			    uint64_t at, const float *ref, uint64_t count)
{
	uint64_t wrong = 0;

	for (uint64_t e = 0; e < count; e++) {
		if (t == M890_TYPE_BF16) {
			uint16_t got, want = m890_float_to_bf16(ref[e]);

			memcpy(&got, r->hp + at + 2 * e, 2);
			wrong += got != want;
		} else {
			uint32_t got, want;

			memcpy(&got, r->hp + at + 4 * e, 4);
			memcpy(&want, &ref[e], 4);
			wrong += got != want;
		}
	}
	return wrong;
}

/* Bytes [from, to) of hp are still the poison. */
static uint64_t unpoisoned(const struct tr *r, uint64_t from, uint64_t to)
{
	uint64_t bad = 0;

	for (uint64_t o = from; o < to; o++)
		bad += r->hp[o] != POISON;
	return bad;
}

static void bufs(struct tc *c, m890_buffer_t *sb, m890_buffer_t *rb,
		 m890_stream_t *s, bool inplace)
{
	for (int l = 0; l < c->m; l++) {
		sb[l] = inplace ? c->r[l].rb : c->r[l].sb;
		rb[l] = c->r[l].rb;
		s[l] = c->r[l].str;
	}
}

/* An allreduce of @count elements; @inplace: operand staged into rb. */
static int t_allreduce(struct tc *c, enum m890_data_type t, uint64_t count,
		       uint32_t algo, bool inplace, int round)
{
	struct m890_coll_opts o = M890_COLL_OPTS_INIT;
	m890_buffer_t sb[MAXN], rb[MAXN];
	m890_stream_t s[MAXN];
	uint64_t wrong = 0, bytes = count * esz(t);

	o.algorithm = algo;
	for (int l = 0; l < c->m; l++)
		put_operand(&c->r[l], t, 0, 0, count, round);
	bufs(c, sb, rb, s, inplace);
	if (inplace) {
		/* The operand goes to rb: stage poison first, then the data. */
		if (!stage(c, NULL, 0))
			return 0;
		for (int l = 0; l < c->m; l++)
			if (m890_memcpy_htod(s[l], rb[l], 0, c->r[l].hb, 0, bytes))
				return 0;
	} else if (!stage(c, NULL, bytes)) {
		return 0;
	}
	if (m890_allreduce(c->comm, sb, rb, count, t, M890_OP_SUM, s, &o)) {
		printf("# allreduce: %s\n", m890_get_last_error());
		return 0;
	}
	if (!sync_all(c) || !fetch(c))
		return 0;
	reference(c, t, 0, count, round);
	for (int l = 0; l < c->m; l++) {
		uint64_t w = wrong_elems(&c->r[l], t, 0, c->ref, count);

		w += unpoisoned(&c->r[l], bytes, c->bytes);
		if (w)
			printf("# rank %d allreduce %llu x %u, algorithm %u: %llu wrong\n",
			       c->r[l].rank, (unsigned long long)count, esz(t), algo,
			       (unsigned long long)w);
		wrong += w;
	}
	return !wrong;
}

static int t_reduce_scatter(struct tc *c, enum m890_data_type t, uint64_t count,
			    bool inplace, int round)
{
	m890_buffer_t sb[MAXN], rb[MAXN];
	m890_stream_t s[MAXN];
	uint64_t wrong = 0, blk = count * esz(t), total = blk * (uint64_t)c->n;

	for (int l = 0; l < c->m; l++)
		put_operand(&c->r[l], t, 0, 0, count * (uint64_t)c->n, round);
	bufs(c, sb, rb, s, inplace);
	if (!stage(c, NULL, 0))
		return 0;
	for (int l = 0; l < c->m; l++)
		if (m890_memcpy_htod(s[l], sb[l], 0, c->r[l].hb, 0, total))
			return 0;
	if (m890_reduce_scatter(c->comm, sb, rb, count, t, M890_OP_SUM, s, NULL)) {
		printf("# reduce_scatter: %s\n", m890_get_last_error());
		return 0;
	}
	if (!sync_all(c) || !fetch(c))
		return 0;
	for (int l = 0; l < c->m; l++) {
		struct tr *r = &c->r[l];
		uint64_t at = inplace ? blk * (uint64_t)r->rank : 0, w;

		reference(c, t, count * (uint64_t)r->rank, count, round);
		w = wrong_elems(r, t, at, c->ref, count);
		if (inplace) {
			/* The other blocks keep the operand. */
			for (int j = 0; j < c->n; j++)
				for (uint64_t e = 0; e < count && j != r->rank; e++) {
					float want = operand(t, r->rank, j * count + e, round);
					uint64_t o = blk * (uint64_t)j + e * esz(t);

					if (t == M890_TYPE_BF16) {
						uint16_t g, v = m890_float_to_bf16(want);

						memcpy(&g, r->hp + o, 2);
						w += g != v;
					} else {
						w += memcmp(r->hp + o, &want, 4) != 0;
					}
				}
			w += unpoisoned(r, total, c->bytes);
		} else {
			w += unpoisoned(r, blk, c->bytes);
		}
		if (w)
			printf("# rank %d reduce_scatter %llu: %llu wrong\n", r->rank,
			       (unsigned long long)count, (unsigned long long)w);
		wrong += w;
	}
	return !wrong;
}

static uint8_t gpat(int j, uint64_t o, int round)
{
	return (uint8_t)(hash((uint32_t)(o * 31 + (uint64_t)j * 7919 + (uint64_t)round)) >> 7);
}

static int t_allgather(struct tc *c, uint64_t b, bool inplace, int round)
{
	m890_buffer_t sb[MAXN], rb[MAXN];
	m890_stream_t s[MAXN];
	uint64_t wrong = 0;

	bufs(c, sb, rb, s, inplace);
	if (!stage(c, NULL, 0))
		return 0;
	for (int l = 0; l < c->m; l++) {
		struct tr *r = &c->r[l];
		uint64_t at = inplace ? b * (uint64_t)r->rank : 0;

		for (uint64_t o = 0; o < b; o++)
			r->hp[o] = gpat(r->rank, o, round);
		if (m890_memcpy_htod(s[l], sb[l], at, r->hb, 0, b))
			return 0;
	}
	if (m890_allgather(c->comm, sb, rb, b, s, NULL)) {
		printf("# allgather: %s\n", m890_get_last_error());
		return 0;
	}
	if (!sync_all(c) || !fetch(c))
		return 0;
	for (int l = 0; l < c->m; l++) {
		struct tr *r = &c->r[l];
		uint64_t w = 0;

		for (int j = 0; j < c->n; j++)
			for (uint64_t o = 0; o < b; o++)
				w += r->hp[(uint64_t)j * b + o] != gpat(j, o, round);
		w += unpoisoned(r, b * (uint64_t)c->n, c->bytes);
		if (w)
			printf("# rank %d allgather %llu: %llu wrong\n", r->rank,
			       (unsigned long long)b, (unsigned long long)w);
		wrong += w;
	}
	return !wrong;
}

static int t_broadcast(struct tc *c, uint64_t b, int root, bool inplace, int round)
{
	m890_buffer_t sb[MAXN], rb[MAXN];
	m890_stream_t s[MAXN];
	uint64_t wrong = 0;

	bufs(c, sb, rb, s, inplace);
	if (!stage(c, NULL, 0))
		return 0;
	for (int l = 0; l < c->m; l++) {
		struct tr *r = &c->r[l];

		if (r->rank != root) {
			sb[l] = NULL;
			continue;
		}
		for (uint64_t o = 0; o < b; o++)
			r->hp[o] = gpat(root, o, round);
		if (m890_memcpy_htod(s[l], inplace ? rb[l] : r->sb, 0, r->hb, 0, b))
			return 0;
	}
	if (m890_broadcast(c->comm, sb, rb, b, root, s, NULL)) {
		printf("# broadcast: %s\n", m890_get_last_error());
		return 0;
	}
	if (!sync_all(c) || !fetch(c))
		return 0;
	for (int l = 0; l < c->m; l++) {
		struct tr *r = &c->r[l];
		uint64_t w = unpoisoned(r, b, c->bytes);

		for (uint64_t o = 0; o < b; o++)
			w += r->hp[o] != gpat(root, o, round);
		if (w)
			printf("# rank %d broadcast %llu: %llu wrong\n", r->rank,
			       (unsigned long long)b, (unsigned long long)w);
		wrong += w;
	}
	return !wrong;
}

/*
 * An allreduce that records its completion into one event per rank; a
 * second stream waits on it on the card and copies the result out.
 */
static int t_events(struct tc *c, int round)
{
	struct m890_coll_opts o = M890_COLL_OPTS_INIT;
	m890_event_t ev[MAXN] = { 0 };
	m890_buffer_t sb[MAXN], rb[MAXN];
	m890_stream_t s[MAXN];
	uint64_t count = 4099, wrong = 0;
	int ok = 1;

	for (int l = 0; l < c->m && ok; l++) {
		put_operand(&c->r[l], M890_TYPE_FP32, 0, 0, count, round);
		ok = m890_event_create(c->r[l].dev, &ev[l]) == M890_SUCCESS;
	}
	bufs(c, sb, rb, s, false);
	ok = ok && stage(c, NULL, count * 4);
	o.events = ev;
	if (ok && m890_allreduce(c->comm, sb, rb, count, M890_TYPE_FP32, M890_OP_SUM, s, &o))
		ok = 0;
	for (int l = 0; l < c->m && ok; l++) {
		struct tr *r = &c->r[l];

		memset(r->hp, 0, count * 4);
		ok = m890_stream_wait_event(r->str2, ev[l]) == M890_SUCCESS &&
		     m890_memcpy_dtoh(r->str2, r->hb, 0, r->rb, 0, count * 4) == M890_SUCCESS;
	}
	for (int l = 0; l < c->m && ok; l++)
		ok = m890_stream_synchronize(c->r[l].str2) == M890_SUCCESS;
	if (!ok)
		printf("# events: %s\n", m890_get_last_error());
	if (ok) {
		reference(c, M890_TYPE_FP32, 0, count, round);
		for (int l = 0; l < c->m; l++)
			wrong += wrong_elems(&c->r[l], M890_TYPE_FP32, 0, c->ref, count);
		if (wrong)
			printf("# events: %llu wrong\n", (unsigned long long)wrong);
	}
	ok = ok && sync_all(c);
	for (int l = 0; l < c->m; l++)
		if (ev[l])
			m890_event_destroy(ev[l]);
	return ok && !wrong;
}

static int t_barrier(struct tc *c)
{
	m890_stream_t s[MAXN];

	for (int l = 0; l < c->m; l++)
		s[l] = c->r[l].str;
	if (m890_barrier(c->comm, s, NULL)) {
		printf("# barrier: %s\n", m890_get_last_error());
		return 0;
	}
	return sync_all(c);
}

static int t_zero(struct tc *c)
{
	m890_buffer_t sb[MAXN], rb[MAXN];
	m890_stream_t s[MAXN];

	bufs(c, sb, rb, s, false);
	if (!stage(c, NULL, 0) ||
	    m890_allreduce(c->comm, sb, rb, 0, M890_TYPE_FP32, M890_OP_SUM, s, NULL) ||
	    m890_allgather(c->comm, sb, rb, 0, s, NULL) || !sync_all(c) || !fetch(c)) {
		printf("# zero counts: %s\n", m890_get_last_error());
		return 0;
	}
	for (int l = 0; l < c->m; l++)
		if (unpoisoned(&c->r[l], 0, c->bytes))
			return 0;
	return 1;
}

#define NCHECK 14
static const char *const check_name[NCHECK] = {
	"allreduce fp32 one-shot, 3+ pieces: bit-exact",
	"allreduce fp32 two-shot, pieces, uneven blocks: bit-exact",
	"allreduce bf16 in place (auto): bit-exact",
	"allreduce and allgather of 0: nothing written",
	"reduce-scatter fp32: bit-exact",
	"reduce-scatter bf16 in place: bit-exact, other blocks kept",
	"allgather: every byte",
	"allgather in place: every byte",
	"broadcast from the last rank: every byte",
	"broadcast in place at the root: every byte",
	"barrier",
	"allreduce's completion events waited on by other streams",
	"mismatches refused alike at every rank, then in step",
	"a peer that exits: the others time out naming it",
};

/* The checks of every mode; bit k for check_name[k]. */
static unsigned int run_checks(struct tc *c)
{
	uint64_t slot1 = M890_COMM_SCRATCH_BYTES / ((uint64_t)c->n * 4);
	unsigned int ok = 0;
	uint64_t big = c->bytes / 4 - 37;

	ok |= (unsigned int)t_allreduce(c, M890_TYPE_FP32, slot1 * 2 + 1001,
					M890_ALGO_ONE_SHOT, false, 1) << 0;
	ok |= (unsigned int)t_allreduce(c, M890_TYPE_FP32, big, M890_ALGO_TWO_SHOT,
					false, 2) << 1;
	ok |= (unsigned int)t_allreduce(c, M890_TYPE_BF16, 30011, M890_ALGO_AUTO,
					true, 3) << 2;
	ok |= (unsigned int)t_zero(c) << 3;
	ok |= (unsigned int)t_reduce_scatter(c, M890_TYPE_FP32,
					     c->bytes / 4 / (uint64_t)c->n - 3, false, 4) << 4;
	ok |= (unsigned int)t_reduce_scatter(c, M890_TYPE_BF16, 7777 / (uint64_t)c->n + 1,
					     true, 5) << 5;
	ok |= (unsigned int)t_allgather(c, c->bytes / (uint64_t)c->n - 5, false, 6) << 6;
	ok |= (unsigned int)t_allgather(c, 12289, true, 7) << 7;
	ok |= (unsigned int)t_broadcast(c, c->bytes - 3, c->n - 1, false, 8) << 8;
	ok |= (unsigned int)t_broadcast(c, 100003, 0, true, 9) << 9;
	ok |= (unsigned int)t_barrier(c) << 10;
	ok |= (unsigned int)t_events(c, 11) << 11;
	return ok;
}

static int rank_open(struct tr *r, int idx, uint64_t bytes)
{
	void *p;

	r->rank = idx;
	if (m890_device_open(idx, &r->dev) || m890_stream_create(r->dev, &r->str) ||
	    m890_stream_create(r->dev, &r->str2) ||
	    m890_buffer_alloc(r->dev, bytes, M890_MEM_HBM, &r->sb) ||
	    m890_buffer_alloc(r->dev, bytes, M890_MEM_HBM, &r->rb) ||
	    m890_buffer_alloc(r->dev, bytes, M890_MEM_HBM, &r->other) ||
	    m890_buffer_alloc(r->dev, 2 * bytes, M890_MEM_HOST, &r->hb) ||
	    m890_buffer_map(r->hb, &p)) {
		printf("# rank %d setup: %s\n", idx, m890_get_last_error());
		return 0;
	}
	r->hp = p;
	return 1;
}

static int rank_close(struct tr *r)
{
	return !m890_buffer_free(r->sb) && !m890_buffer_free(r->rb) &&
	       !m890_buffer_free(r->other) && !m890_buffer_free(r->hb) &&
	       !m890_stream_destroy(r->str) && !m890_stream_destroy(r->str2) &&
	       !m890_device_close(r->dev);
}

/* A WAIT on the card for another stream's event; no host round trip. */
static void t_wait_event(void)
{
	m890_device_t dev;
	m890_stream_t a, b, other;
	m890_event_t ev, never;
	m890_buffer_t hs, x, y;
	volatile uint64_t *sem;
	m890_status_t st, qst;
	uint32_t *yp;
	void *p, *q;
	int ok;

	TAP_REQUIRE(m890_device_open(0, &dev));
	TAP_REQUIRE(m890_stream_create(dev, &a));
	TAP_REQUIRE(m890_stream_create(dev, &b));
	TAP_REQUIRE(m890_event_create(dev, &ev));
	TAP_REQUIRE(m890_event_create(dev, &never));
	TAP_REQUIRE(m890_buffer_alloc(dev, 4096, M890_MEM_HOST, &hs));
	TAP_REQUIRE(m890_buffer_alloc(dev, 65536, M890_MEM_HBM, &x));
	TAP_REQUIRE(m890_buffer_alloc(dev, 65536, M890_MEM_HOST, &y));
	TAP_REQUIRE(m890_buffer_map(hs, &p));
	TAP_REQUIRE(m890_buffer_map(y, &q));
	sem = p;
	yp = q;
	*sem = 0;
	memset(q, 0, 65536);
	{
		uint64_t xva, yva, sva;

		TAP_REQUIRE(m890_buffer_va(x, &xva));
		TAP_REQUIRE(m890_buffer_va(y, &yva));
		TAP_REQUIRE(m890_buffer_va(hs, &sva));
		/* a: held until the CPU sets the semaphore, then fills x. */
		TAP_REQUIRE(m890_wait(a, sva, 1, M890_SEM_GE));
		TAP_REQUIRE(m890_memset32(a, xva, 0x5eed1234u, 65536));
		TAP_REQUIRE(m890_event_record(ev, a));
		/* b: waits on the card for a's event, then copies x to y. */
		TAP_STATUS(m890_stream_wait_event(b, never), M890_ERROR_INVALID_ARGUMENT);
		TAP_STATUS(m890_stream_wait_event(b, ev), M890_SUCCESS);
		TAP_REQUIRE(m890_memcpy(b, yva, xva, 65536));
		usleep(200000);
		ok = m890_stream_query(b) == M890_NOT_READY && yp[0] == 0;
		tap_ok(ok, "a stream waiting on an event does not run ahead of it");
		*sem = 1;
		st = m890_stream_synchronize(b);
		if (st)
			printf("# stream b: %s\n", m890_get_last_error());
		/* b is done, so the point b waited for has executed. */
		qst = m890_event_query(ev);
		if (qst)
			printf("# event query after b: %s\n", m890_get_last_error());
		ok = !st && !qst;
		for (int k = 0; ok && k < 65536 / 4; k++) {
			ok = yp[k] == 0x5eed1234u;
			if (!ok)
				printf("# word %d: %#x\n", k, yp[k]);
		}
		tap_ok(ok, "... and runs once the recorded work executed: every word");
	}
	if (m890_device_count(&ok) == M890_SUCCESS && ok > 1) {
		m890_device_t d1;

		TAP_REQUIRE(m890_device_open(1, &d1));
		TAP_REQUIRE(m890_stream_create(d1, &other));
		TAP_STATUS(m890_stream_wait_event(other, ev), M890_ERROR_DEVICE_MISMATCH);
		TAP_REQUIRE(m890_stream_destroy(other));
		TAP_REQUIRE(m890_device_close(d1));
	}
	TAP_STATUS(m890_stream_wait_event(NULL, ev), M890_ERROR_INVALID_HANDLE);
	TAP_REQUIRE(m890_stream_synchronize(a));
	m890_buffer_free(hs);
	m890_buffer_free(x);
	m890_buffer_free(y);
	m890_event_destroy(ev);
	m890_event_destroy(never);
	m890_stream_destroy(a);
	m890_stream_destroy(b);
	TAP_REQUIRE(m890_device_close(dev));
}

static uint64_t buf_bytes(int n)
{
	/*
	 * The one-shot check needs more than two scratch slots of
	 * M890_COMM_SCRATCH_BYTES / n: 8 MiB and more on one rank.
	 */
	if (n == 1)
		return (9ull << 20) + 4096;
	return n <= 8 ? (5ull << 20) + 4096 : (1ull << 20) + 4096;
}

static void single_process(int n)
{
	struct tr r[MAXN];
	struct tc c = { .n = n, .m = n, .r = r, .bytes = buf_bytes(n) };
	m890_device_t devs[MAXN];
	unsigned int ok;
	int good = 1;

	for (int i = 0; i < n && good; i++) {
		good = rank_open(&r[i], i, c.bytes);
		devs[i] = r[i].dev;
	}
	c.ref = malloc(c.bytes);
	if (!good || !c.ref || m890_comm_create(devs, n, NULL, &c.comm)) {
		tap_ok(0, "single process: setup (%s)", m890_get_last_error());
		return;
	}
	ok = run_checks(&c);
	for (int k = 0; k < 12; k++)
		tap_ok(ok >> k & 1, "%d ranks in one process: %s", n, check_name[k]);
	good = m890_comm_destroy(c.comm) == M890_SUCCESS;
	for (int i = 0; i < n; i++)
		good &= rank_close(&r[i]);
	tap_ok(good, "%d ranks in one process: destroys everything", n);
	free(c.ref);
}

/* The per-rank refusals: another count at rank 0, an unregistered buffer. */
static int refusals(struct tc *c)
{
	struct tr *r = &c->r[0];
	m890_buffer_t rb = r->rb;
	m890_status_t st;
	char want[64];
	int good = 1;

	st = m890_allreduce(c->comm, &r->sb, &rb, r->rank ? 100 : 101,
			    M890_TYPE_FP32, M890_OP_SUM, &r->str, NULL);
	good &= st == M890_ERROR_INVALID_ARGUMENT &&
		strstr(m890_get_last_error(), "rank 0 passes count 101") &&
		strstr(m890_get_last_error(), "rank 1 passes 100");
	if (!good)
		printf("# rank %d count mismatch: %s\n", r->rank, m890_get_last_error());
	if (r->rank == c->n - 1)
		rb = r->other;
	st = m890_allgather(c->comm, &r->sb, &rb, 64, &r->str, NULL);
	snprintf(want, sizeof(want), "rank %d refused the call", c->n - 1);
	good &= st == M890_ERROR_INVALID_ARGUMENT && strstr(m890_get_last_error(), want) &&
		strstr(m890_get_last_error(), "not registered");
	if (!good)
		printf("# rank %d unregistered: %s\n", r->rank, m890_get_last_error());
	good &= t_allreduce(c, M890_TYPE_FP32, 777, M890_ALGO_AUTO, false, 12);
	return good;
}

static unsigned int child(int me, int n, const char *path)
{
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	struct tr r;
	struct tc c = { .n = n, .m = 1, .per_rank = true, .r = &r,
			.bytes = buf_bytes(n) };
	unsigned int ok;
	char want[64];
	m890_status_t st;

	cfg.timeout_ns = rank_timeout_ns(n, 5000000000ull);
	c.ref = malloc(c.bytes);
	if (!c.ref || !rank_open(&r, me, c.bytes))
		return 0;
	if (m890_comm_create_rank(r.dev, me, n, path, &cfg, &c.comm) ||
	    m890_comm_register(c.comm, r.rb)) {
		printf("# rank %d: %s\n", me, m890_get_last_error());
		return 0;
	}
	ok = run_checks(&c);
	ok |= (unsigned int)refusals(&c) << 12;
	if (me == n - 1) {
		fflush(stdout);
		_exit(0x80 | (ok == (1u << 13) - 1 ? 0 : 1));
	}
	st = m890_allreduce(c.comm, &r.sb, &r.rb, 64, M890_TYPE_FP32, M890_OP_SUM,
			    &r.str, NULL);
	snprintf(want, sizeof(want), "waiting for rank %d", n - 1);
	if (st == M890_ERROR_TIMEOUT && strstr(m890_get_last_error(), want))
		ok |= 1u << 13;
	else
		printf("# rank %d exit: %s: %s\n", me, m890_status_string(st),
		       m890_get_last_error());
	m890_comm_abort(c.comm);
	m890_stream_synchronize(r.str);
	m890_comm_destroy(c.comm);
	rank_close(&r);
	free(c.ref);
	return ok;
}

static void per_process(int n)
{
	pid_t pid[MAXN];
	int fdp[MAXN][2];
	char path[64];

	char old_jt[32] = "";

	/*
	 * Every rank's WAITs for its peers start as it is enqueued; with 64
	 * processes on a loaded guest the last peer can come seconds later,
	 * past the driver's 5 s job timeout.  Raise it so that the
	 * communicator's own timeout is what fires (as test_comm does).
	 */
	if (n > 8 && !job_timeout(old_jt, sizeof(old_jt), "60000"))
		old_jt[0] = 0;
	snprintf(path, sizeof(path), "/tmp/m890-dcoll-%d.sock", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		if (pipe(fdp[i]))
			exit(1);
		pid[i] = fork();
		if (pid[i] == 0) {
			unsigned int ok;

			close(fdp[i][0]);
			alarm(600);
			ok = child(i, n, path);
			if (write(fdp[i][1], &ok, sizeof(ok)) != sizeof(ok))
				_exit(2);
			fflush(stdout);
			_exit(0);
		}
		close(fdp[i][1]);
	}
	for (int i = 0; i < n; i++) {
		unsigned int ok = 0;
		int status = 0, last = i == n - 1;
		ssize_t got = read(fdp[i][0], &ok, sizeof(ok));

		waitpid(pid[i], &status, 0);
		close(fdp[i][0]);
		if (last) {
			/* Exits on purpose before the last call: its status tells. */
			ok = WIFEXITED(status) && WEXITSTATUS(status) == 0x80 ?
			     (1u << 13) - 1 : 0;
		} else if (got != sizeof(ok) || !WIFEXITED(status) || WEXITSTATUS(status)) {
			ok = 0;
		}
		for (int k = 0; k < NCHECK - last; k++)
			tap_ok(ok >> k & 1, "rank %d of %d, one process per card: %s",
			       i, n, check_name[k]);
	}
	unlink(path);
	if (old_jt[0])
		job_timeout(NULL, 0, old_jt);
}

/*
 * Ranks met through the switch (m890_comm_create_fabric): this process's
 * cards are ranks fid - @first of fabric ids @first .. @last; in one VM
 * every card is local, with --vms each VM runs this at the same time
 * with the same arguments.  @label names the mode in the TAP lines.
 */
static void fabric(uint64_t id, int first, int last, const char *label)
{
	struct m890_comm_fabric_config fc = M890_COMM_FABRIC_CONFIG_INIT;
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	int n = last - first + 1, m;
	struct tr r[MAXN];
	struct tc c = { .n = n, .r = r, .per_rank = true, .bytes = buf_bytes(n) };
	m890_device_t devs[MAXN];
	uint32_t fids[MAXN];
	unsigned int ok;
	int good = 1;

	if (m890_device_count(&m) || m < 1) {
		tap_ok(0, "%s: no card", label);
		return;
	}
	if (m > n)
		m = n;
	c.m = m;
	for (int i = 0; i < n; i++)
		fids[i] = (uint32_t)(first + i);
	for (int l = 0; l < m && good; l++) {
		struct m890_device_info info = M890_DEVICE_INFO_INIT;

		good = rank_open(&r[l], l, c.bytes) &&
		       !m890_device_get_info(r[l].dev, &info) &&
		       (int)info.fabric_id >= first && (int)info.fabric_id <= last;
		r[l].rank = (int)info.fabric_id - first;
		devs[l] = r[l].dev;
	}
	fc.comm_id = id;
	fc.nranks = n;
	fc.ndevices = m;
	fc.fabric_ids = fids;
	fc.devices = devs;
	cfg.timeout_ns = 300000000000ull;
	c.ref = malloc(c.bytes);
	good = good && c.ref && !m890_comm_create_fabric(&fc, &cfg, &c.comm);
	for (int l = 0; l < m && good; l++)
		good = !m890_comm_register(c.comm, r[l].rb);
	if (!good) {
		tap_ok(0, "%s: setup (%s)", label, m890_get_last_error());
		return;
	}
	ok = run_checks(&c);
	for (int k = 0; k < 12; k++)
		tap_ok(ok >> k & 1, "%d ranks through the switch, %d here (%s): %s", n, m,
		       label, check_name[k]);
	good = m890_comm_destroy(c.comm) == M890_SUCCESS;
	for (int l = 0; l < m; l++)
		good &= rank_close(&r[l]);
	tap_ok(good, "%d ranks through the switch (%s): destroys everything", n, label);
	free(c.ref);
}

/*
 * No arguments: the wait on an event, then every card in one process,
 * through the switch in one process, and one process per card.
 * --vms COMMID FIRST-LAST: this VM's cards' part of a communicator over
 * fabric ids FIRST..LAST (tests/guest/m890-vm-fabric.sh).
 */
int main(int argc, char **argv)
{
	int n;

	if (argc == 4 && !strcmp(argv[1], "--vms")) {
		uint64_t id = strtoull(argv[2], NULL, 0);
		int first, last;

		if (!id || sscanf(argv[3], "%d-%d", &first, &last) != 2 || first < 0 ||
		    last < first || last - first + 1 > MAXN) {
			fprintf(stderr, "usage: %s [--vms COMMID FIRST-LAST]\n", argv[0]);
			return 2;
		}
		fabric(id, first, last, "across VMs");
		return tap_done();
	}
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--vms COMMID FIRST-LAST]\n", argv[0]);
		return 2;
	}
	if (m890_device_count(&n) || n < 1) {
		tap_skip("no card", "device collectives");
		return tap_done();
	}
	if (n > MAXN)
		n = MAXN;
	t_wait_event();
	single_process(n);
	{
		struct m890_device_info info = M890_DEVICE_INFO_INIT;
		m890_device_t d;

		/* In one VM the cards' fabric ids are 0 .. n - 1. */
		if (!m890_device_open(0, &d) && !m890_device_get_info(d, &info) &&
		    !m890_device_close(d) && info.fabric_id != M890_DEVICE_NO_FABRIC &&
		    (info.capabilities & M890_CAP_FABRIC_WINDOWS))
			fabric(0xdc01, (int)info.fabric_id, (int)info.fabric_id + n - 1,
			       "one process");
		else
			tap_skip("no fabric windows", "ranks through the switch");
	}
	if (n >= 2)
		per_process(n);
	else
		tap_skip("needs two cards", "one process per card");
	return tap_done();
}
