// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 groups of collectives, unique-id communicators and
 * deregistration (guest)
 *
 * Every communicator here is built by m890_comm_init_rank(s) from an id
 * of m890_get_unique_id(): every rank in this process, one process per
 * card meeting at a socket (id made without a card), one process per card
 * meeting through the switch (id made with card 0), and with --vms the
 * cards of several VMs (the id given as text).  On each:
 *
 * - a group of an fp32 allreduce, an allgather, an all-to-all, a bf16
 *   reduce-scatter and a barrier: every output byte against the host
 *   reference (sums in rank order in binary32);
 * - a group whose second call is refused (broadcast from a root that is
 *   no rank): m890_group_end() fails at every rank naming the call, and
 *   the first call's receive buffer keeps its poison (nothing enqueued);
 * - an event recorded inside a group after its all-to-all: a second
 *   stream waiting on it copies the finished result, the event's device
 *   time is past the group's data, and a wait on it inside the group is
 *   refused;
 * - (per-rank) groups of different lengths: every rank fails naming the
 *   ranks, and an allreduce afterwards is in step;
 * - deregistration: a deregistered receive buffer is refused at every
 *   rank, registered again it works; on the socket kind, ranks that
 *   deregister different registrations fail alike.
 *
 * Also the calls outside a communicator: group_end without a start,
 * nested groups, ids as text and back, malformed ids.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#define MAXN 64
#define POISON 0xa5a5a5a5u
#define AR_COUNT 50021ull		/* fp32 elements of the allreduce */
#define AG_BYTES 12289ull		/* allgather bytes per rank */
#define A2A_BYTES 4099ull		/* all-to-all bytes per peer */
#define RS_COUNT 3001ull		/* bf16 elements per rank */
#define BUF (1ull << 20)

struct rk {
	int rank;
	m890_device_t dev;
	m890_stream_t s;
	m890_buffer_t src, src16, ar, ag, a2a, rs, host;
	uint8_t *hp;			/* mapped host, BUF bytes */
};

struct ctx {
	m890_comm_t comm;
	int n, m;
	bool per_rank, socket;
	struct rk *r;			/* [m] */
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

/* Rank @j's fp32 operand element @e (exact in bf16 too). */
static float val(int j, uint64_t e)
{
	uint32_t h = hash((uint32_t)e * 2654435761u ^ (uint32_t)(j * 7919 + 13));
	int mant = (int)(h % 255) - 127;
	int ex = (int)((h >> 10) % 30) - 15;

	return (float)mant * (ex >= 0 ? (float)(1u << ex) : 1.0f / (float)(1u << -ex));
}

/* The source buffer: fp32 operand, then bf16 operand at BUF / 2. */
static void fill_src(struct rk *r)
{
	float *f = (float *)r->hp;
	uint16_t *h = (uint16_t *)(r->hp + BUF / 2);

	for (uint64_t e = 0; e < BUF / 2 / 4; e++)
		f[e] = val(r->rank, e);
	for (uint64_t e = 0; e < BUF / 2 / 2; e++)
		h[e] = m890_float_to_bf16(val(r->rank, e + 7));
}

static int sync_all(struct ctx *c)
{
	m890_stream_t s[MAXN];

	for (int l = 0; l < c->m; l++)
		s[l] = c->r[l].s;
	if (m890_comm_synchronize(c->comm, s)) {
		printf("# synchronize: %s\n", m890_get_last_error());
		return 0;
	}
	return 1;
}

/* Source staged, the receive buffers poisoned. */
static int stage(struct ctx *c)
{
	for (int l = 0; l < c->m; l++) {
		struct rk *r = &c->r[l];
		uint64_t va;
		m890_buffer_t poison[4] = { r->ar, r->ag, r->a2a, r->rs };

		fill_src(r);
		if (m890_memcpy_htod(r->s, r->src, 0, r->host, 0, BUF / 2) ||
		    m890_memcpy_htod(r->s, r->src16, 0, r->host, BUF / 2, BUF / 2))
			return 0;
		for (int k = 0; k < 4; k++)
			if (m890_buffer_va(poison[k], &va) ||
			    m890_memset32(r->s, va, POISON, BUF))
				return 0;
	}
	return sync_all(c);
}

static int fetch(struct ctx *c, int l, m890_buffer_t b)
{
	struct rk *r = &c->r[l];

	return !m890_memcpy_dtoh(r->s, r->host, 0, b, 0, BUF) &&
	       !m890_stream_synchronize(r->s);
}

static uint64_t poisoned_from(const uint8_t *p, uint64_t from)
{
	uint64_t bad = 0;

	for (uint64_t o = from; o < BUF; o++)
		bad += p[o] != 0xa5;
	return bad;
}

static void arrays(struct ctx *c, m890_buffer_t *a, m890_buffer_t which, int k)
{
	for (int l = 0; l < c->m; l++) {
		m890_buffer_t v[6] = { c->r[l].src, c->r[l].ar, c->r[l].ag,
				       c->r[l].a2a, c->r[l].rs, c->r[l].src16 };

		a[l] = which ? which : v[k];
	}
}

/* Wrong bytes of rank @r's all-to-all result, fetched to r->hp. */
static uint64_t a2a_wrong(const struct ctx *c, const struct rk *r)
{
	uint64_t w = 0;

	for (int j = 0; j < c->n; j++)
		for (uint64_t o = 0; o < A2A_BYTES; o++) {
			uint64_t at = (uint64_t)r->rank * A2A_BYTES + o;
			float v = val(j, at / 4);

			w += r->hp[j * A2A_BYTES + o] != ((uint8_t *)&v)[at % 4];
		}
	return w + poisoned_from(r->hp, A2A_BYTES * (uint64_t)c->n);
}

/* The group of five calls; every byte checked.  1 if right. */
static int t_group(struct ctx *c)
{
	m890_buffer_t src[MAXN], ar[MAXN], ag[MAXN], a2a[MAXN], rs[MAXN], s16[MAXN];
	m890_stream_t s[MAXN];
	uint64_t wrong = 0;
	m890_status_t st;

	if (!stage(c))
		return 0;
	arrays(c, src, NULL, 0);
	arrays(c, ar, NULL, 1);
	arrays(c, ag, NULL, 2);
	arrays(c, a2a, NULL, 3);
	arrays(c, rs, NULL, 4);
	arrays(c, s16, NULL, 5);
	for (int l = 0; l < c->m; l++)
		s[l] = c->r[l].s;
	m890_group_start();
	st = m890_allreduce(c->comm, src, ar, AR_COUNT, M890_TYPE_FP32, M890_OP_SUM, s, NULL);
	st |= m890_allgather(c->comm, src, ag, AG_BYTES, s, NULL);
	st |= m890_alltoall(c->comm, src, a2a, A2A_BYTES, s);
	st |= m890_barrier(c->comm, s, NULL);
	m890_group_start();	/* nested: runs at the outer end */
	st |= m890_reduce_scatter(c->comm, s16, rs, RS_COUNT, M890_TYPE_BF16,
				  M890_OP_SUM, s, NULL);
	st |= m890_group_end();
	if (st || m890_group_end()) {
		printf("# group: %s\n", m890_get_last_error());
		return 0;
	}
	if (!sync_all(c))
		return 0;
	for (int l = 0; l < c->m; l++) {
		struct rk *r = &c->r[l];
		const float *f = (const float *)r->hp;
		const uint16_t *h = (const uint16_t *)r->hp;
		int i = r->rank;
		uint64_t w = 0;

		if (!fetch(c, l, r->ar))
			return 0;
		for (uint64_t e = 0; e < AR_COUNT; e++) {
			float sum = 0.0f;

			for (int j = 0; j < c->n; j++)
				sum += val(j, e);
			w += memcmp(&f[e], &sum, 4) != 0;
		}
		w += poisoned_from(r->hp, AR_COUNT * 4);
		if (!fetch(c, l, r->ag))
			return 0;
		for (int j = 0; j < c->n; j++)
			for (uint64_t o = 0; o < AG_BYTES; o++) {
				float v = val(j, o / 4);

				w += r->hp[j * AG_BYTES + o] != ((uint8_t *)&v)[o % 4];
			}
		w += poisoned_from(r->hp, AG_BYTES * (uint64_t)c->n);
		if (!fetch(c, l, r->a2a))
			return 0;
		w += a2a_wrong(c, r);
		if (!fetch(c, l, r->rs))
			return 0;
		for (uint64_t e = 0; e < RS_COUNT; e++) {
			float sum = 0.0f;

			for (int j = 0; j < c->n; j++)
				sum += val(j, (uint64_t)i * RS_COUNT + e + 7);
			w += h[e] != m890_float_to_bf16(sum);
		}
		w += poisoned_from(r->hp, RS_COUNT * 2);
		if (w)
			printf("# rank %d: %llu wrong bytes or elements after the group\n",
			       i, (unsigned long long)w);
		wrong += w;
	}
	return !wrong;
}

/*
 * An event recorded inside a group, after its all-to-all, marks the end
 * of the group's work on that stream: a second stream that waits on it
 * copies the finished result, and its device time is past the group's
 * data (at most 3.2 TB/s of HBM).  A wait on it inside the group is
 * refused.  1 if right.
 */
static int t_events(struct ctx *c)
{
	m890_buffer_t src[MAXN], ar[MAXN], a2a[MAXN], cp[MAXN] = { 0 };
	m890_event_t e0[MAXN] = { 0 }, e1[MAXN] = { 0 };
	m890_stream_t s[MAXN], s2[MAXN] = { 0 };
	const int64_t floor_ns = (int64_t)((AR_COUNT * 4 + A2A_BYTES) / 3200);
	int good = stage(c);

	arrays(c, src, NULL, 0);
	arrays(c, ar, NULL, 1);
	arrays(c, a2a, NULL, 3);
	for (int l = 0; l < c->m && good; l++) {
		struct rk *r = &c->r[l];

		s[l] = r->s;
		good = !m890_stream_create(r->dev, &s2[l]) &&
		       !m890_event_create(r->dev, &e0[l]) &&
		       !m890_event_create(r->dev, &e1[l]) &&
		       !m890_buffer_alloc(r->dev, BUF, M890_MEM_HBM, &cp[l]) &&
		       !m890_event_record(e0[l], s[l]);
	}
	if (!good) {
		printf("# events: set-up: %s\n", m890_get_last_error());
		goto out;
	}
	m890_group_start();
	good = !m890_allreduce(c->comm, src, ar, AR_COUNT, M890_TYPE_FP32, M890_OP_SUM, s, NULL) &&
	       !m890_alltoall(c->comm, src, a2a, A2A_BYTES, s);
	for (int l = 0; l < c->m && good; l++)
		good = !m890_event_record(e1[l], s[l]);
	if (good && (m890_stream_wait_event(s2[0], e1[0]) != M890_ERROR_INVALID_ARGUMENT ||
		     !strstr(m890_get_last_error(), "m890_group_end()"))) {
		printf("# events: a wait inside the group: %s\n", m890_get_last_error());
		good = 0;
	}
	good &= !m890_barrier(c->comm, s, NULL);
	if (m890_group_end() || !good) {
		printf("# events: group: %s\n", m890_get_last_error());
		good = 0;
		goto out;
	}
	for (int l = 0; l < c->m && good; l++)
		good = !m890_stream_wait_event(s2[l], e1[l]) &&
		       !m890_memcpy_dtod(s2[l], cp[l], 0, a2a[l], 0, BUF) &&
		       !m890_stream_synchronize(s2[l]);
	if (!good) {
		printf("# events: second stream: %s\n", m890_get_last_error());
		goto out;
	}
	for (int l = 0; l < c->m && good; l++) {
		struct rk *r = &c->r[l];
		int64_t dev_ns = 0;
		uint64_t w;

		if (m890_event_elapsed_time(e0[l], e1[l], NULL, &dev_ns)) {
			printf("# events: rank %d elapsed: %s\n", r->rank,
			       m890_get_last_error());
			good = 0;
			break;
		}
		if (!fetch(c, l, cp[l])) {
			good = 0;
			break;
		}
		w = a2a_wrong(c, r);
		if (w || dev_ns < floor_ns) {
			printf("# events: rank %d: %llu wrong bytes copied after the event, %lld ns of device time from before the group (at least %lld)\n",
			       r->rank, (unsigned long long)w, (long long)dev_ns,
			       (long long)floor_ns);
			good = 0;
		}
	}
out:
	good &= sync_all(c);
	for (int l = 0; l < c->m; l++) {
		if (s2[l] && m890_stream_destroy(s2[l]))
			good = 0;
		if (e0[l] && m890_event_destroy(e0[l]))
			good = 0;
		if (e1[l] && m890_event_destroy(e1[l]))
			good = 0;
		if (cp[l] && m890_buffer_free(cp[l]))
			good = 0;
	}
	return good;
}

/* A group whose call 1 is refused: nothing of call 0 lands. */
static int t_refused(struct ctx *c)
{
	m890_buffer_t src[MAXN], ar[MAXN];
	m890_stream_t s[MAXN];
	m890_status_t st;
	int good;

	if (!stage(c))
		return 0;
	arrays(c, src, NULL, 0);
	arrays(c, ar, NULL, 1);
	for (int l = 0; l < c->m; l++)
		s[l] = c->r[l].s;
	m890_group_start();
	m890_allreduce(c->comm, src, ar, AR_COUNT, M890_TYPE_FP32, M890_OP_SUM, s, NULL);
	m890_broadcast(c->comm, src, ar, 64, c->n, s, NULL);
	st = m890_group_end();
	good = st == M890_ERROR_INVALID_ARGUMENT &&
	       strstr(m890_get_last_error(), "group call 1") &&
	       strstr(m890_get_last_error(), "root");
	if (!good)
		printf("# refused group: %s: %s\n", m890_status_string(st),
		       m890_get_last_error());
	if (!sync_all(c))
		return 0;
	for (int l = 0; l < c->m && good; l++)
		good = fetch(c, l, c->r[l].ar) && !poisoned_from(c->r[l].hp, 0);
	return good;
}

/* One plain allreduce, checked: the ranks are in step. */
static int t_in_step(struct ctx *c)
{
	m890_buffer_t src[MAXN], ar[MAXN];
	m890_stream_t s[MAXN];

	if (!stage(c))
		return 0;
	arrays(c, src, NULL, 0);
	arrays(c, ar, NULL, 1);
	for (int l = 0; l < c->m; l++)
		s[l] = c->r[l].s;
	if (m890_allreduce(c->comm, src, ar, 1000, M890_TYPE_FP32, M890_OP_SUM, s, NULL) ||
	    !sync_all(c))
		return 0;
	for (int l = 0; l < c->m; l++) {
		const float *f = (const float *)c->r[l].hp;

		if (!fetch(c, l, c->r[l].ar))
			return 0;
		for (uint64_t e = 0; e < 1000; e++) {
			float sum = 0.0f;

			for (int j = 0; j < c->n; j++)
				sum += val(j, e);
			if (memcmp(&f[e], &sum, 4))
				return 0;
		}
	}
	return 1;
}

/* Rank 0's group has one call fewer: every rank fails naming both. */
static int t_lengths(struct ctx *c)
{
	m890_buffer_t src[MAXN], ag[MAXN];
	m890_stream_t s[MAXN];
	m890_status_t st;
	int good;

	arrays(c, src, NULL, 0);
	arrays(c, ag, NULL, 2);
	for (int l = 0; l < c->m; l++)
		s[l] = c->r[l].s;
	m890_group_start();
	m890_allgather(c->comm, src, ag, 64, s, NULL);
	if (c->r[0].rank != 0)
		m890_allgather(c->comm, src, ag, 64, s, NULL);
	m890_barrier(c->comm, s, NULL);
	st = m890_group_end();
	good = st == M890_ERROR_INVALID_ARGUMENT &&
	       strstr(m890_get_last_error(), "rank 0 makes 2 calls") &&
	       strstr(m890_get_last_error(), "makes 3");
	if (!good)
		printf("# groups of other lengths: %s: %s\n", m890_status_string(st),
		       m890_get_last_error());
	return good && t_in_step(c);
}

/* Deregistered: refused everywhere; registered again: works. */
static int t_deregister(struct ctx *c)
{
	m890_buffer_t src[MAXN], ag[MAXN];
	m890_stream_t s[MAXN];
	m890_status_t st;
	int good = 1;

	arrays(c, src, NULL, 0);
	arrays(c, ag, NULL, 2);
	for (int l = 0; l < c->m; l++) {
		s[l] = c->r[l].s;
		good &= m890_comm_deregister(c->comm, ag[l]) == M890_SUCCESS;
	}
	if (!good) {
		printf("# deregister: %s\n", m890_get_last_error());
		return 0;
	}
	if (c->per_rank) {
		st = m890_allgather(c->comm, src, ag, 64, s, NULL);
		good = st == M890_ERROR_INVALID_ARGUMENT &&
		       strstr(m890_get_last_error(), "not registered");
		if (!good)
			printf("# after deregister: %s: %s\n", m890_status_string(st),
			       m890_get_last_error());
		st = m890_comm_deregister(c->comm, ag[0]);
		good &= st == M890_ERROR_INVALID_ARGUMENT;
		for (int l = 0; l < c->m; l++)
			good &= m890_comm_register(c->comm, ag[l]) == M890_SUCCESS;
	}
	if (c->socket) {
		/* Rank 0 its all-to-all buffer, the others their allreduce's. */
		st = m890_comm_deregister(c->comm, c->r[0].rank ? c->r[0].ar : c->r[0].a2a);
		good &= st == M890_ERROR_INVALID_ARGUMENT &&
			strstr(m890_get_last_error(), "rank 0 deregisters its registration");
		if (!good)
			printf("# other deregistrations: %s\n", m890_get_last_error());
	}
	return good && t_group(c);
}

#define NCHECK 6
static const char *const check_name[NCHECK] = {
	"a group of allreduce, allgather, all-to-all, barrier, reduce-scatter: every byte",
	"an event recorded in a group marks the end of its work; a wait on it inside is refused",
	"a group with a refused call fails naming it, nothing of it enqueued",
	"groups of other lengths refused alike at every rank, then in step",
	"a deregistered buffer is refused, registered again it works",
	"destroys everything",
};
/* Checks 2 and 3 where every rank is in this process. */
static const char *const local_name[NCHECK] = {
	NULL, NULL, NULL,
	"an allreduce after the refused group is in step",
	"deregistered (cached windows dropped), the buffer works again",
	NULL,
};

static int rank_open(struct rk *r, int idx)
{
	void *p;

	if (m890_device_open(idx, &r->dev) || m890_stream_create(r->dev, &r->s) ||
	    m890_buffer_alloc(r->dev, BUF, M890_MEM_HBM, &r->src) ||
	    m890_buffer_alloc(r->dev, BUF, M890_MEM_HBM, &r->src16) ||
	    m890_buffer_alloc(r->dev, BUF, M890_MEM_HBM, &r->ar) ||
	    m890_buffer_alloc(r->dev, BUF, M890_MEM_HBM, &r->ag) ||
	    m890_buffer_alloc(r->dev, BUF, M890_MEM_HBM, &r->a2a) ||
	    m890_buffer_alloc(r->dev, BUF, M890_MEM_HBM, &r->rs) ||
	    m890_buffer_alloc(r->dev, BUF, M890_MEM_HOST, &r->host) ||
	    m890_buffer_map(r->host, &p)) {
		printf("# card %d setup: %s\n", idx, m890_get_last_error());
		return 0;
	}
	r->hp = p;
	return 1;
}

static int rank_close(struct rk *r)
{
	return !m890_buffer_free(r->src) && !m890_buffer_free(r->src16) &&
	       !m890_buffer_free(r->ar) &&
	       !m890_buffer_free(r->ag) && !m890_buffer_free(r->a2a) &&
	       !m890_buffer_free(r->rs) && !m890_buffer_free(r->host) &&
	       !m890_stream_destroy(r->s) && !m890_device_close(r->dev);
}

/* Build @c over the open ranks from @id, register, run every check. */
static unsigned int run(struct ctx *c, const m890_unique_id_t *id)
{
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	m890_device_t devs[MAXN];
	int ranks[MAXN];
	unsigned int ok = 0;
	int good = 1;

	cfg.timeout_ns = 120000000000ull;
	for (int l = 0; l < c->m; l++) {
		devs[l] = c->r[l].dev;
		ranks[l] = c->r[l].rank;
	}
	if (m890_comm_init_ranks(id, c->n, c->m, ranks, devs, &cfg, &c->comm)) {
		printf("# init: %s\n", m890_get_last_error());
		return 0;
	}
	for (int l = 0; l < c->m && c->per_rank && good; l++)
		good = !m890_comm_register(c->comm, c->r[l].ar) &&
		       !m890_comm_register(c->comm, c->r[l].ag) &&
		       !m890_comm_register(c->comm, c->r[l].a2a);
	if (!good) {
		printf("# register: %s\n", m890_get_last_error());
		return 0;
	}
	ok |= (unsigned int)t_group(c) << 0;
	ok |= (unsigned int)t_events(c) << 1;
	ok |= (unsigned int)t_refused(c) << 2;
	ok |= (unsigned int)(c->per_rank ? t_lengths(c) : t_in_step(c)) << 3;
	ok |= (unsigned int)t_deregister(c) << 4;
	good = m890_comm_destroy(c->comm) == M890_SUCCESS;
	for (int l = 0; l < c->m; l++)
		good &= rank_close(&c->r[l]);
	ok |= (unsigned int)good << 5;
	return ok;
}

static void single_process(int n)
{
	struct rk r[MAXN];
	struct ctx c = { .n = n, .m = n, .r = r };
	m890_unique_id_t id;
	unsigned int ok = 0;
	int good = !m890_get_unique_id(NULL, &id);

	for (int i = 0; i < n && good; i++) {
		r[i].rank = i;
		good = rank_open(&r[i], i);
	}
	if (good)
		ok = run(&c, &id);
	for (int k = 0; k < NCHECK; k++)
		tap_ok(ok >> k & 1, "%d ranks in one process: %s", n,
		       local_name[k] ? local_name[k] : check_name[k]);
}

/* One process per card from @id; @label names the kind. */
static void per_process(int n, const m890_unique_id_t *id, bool socket,
			const char *label)
{
	pid_t pid[MAXN];
	int fdp[MAXN][2];

	fflush(stdout);
	for (int i = 0; i < n; i++) {
		if (pipe(fdp[i]))
			exit(1);
		pid[i] = fork();
		if (pid[i] == 0) {
			struct rk r = { .rank = i };
			struct ctx c = { .n = n, .m = 1, .per_rank = n > 1,
					 .socket = socket, .r = &r };
			unsigned int ok = 0;

			close(fdp[i][0]);
			alarm(900);
			if (rank_open(&r, i))
				ok = run(&c, id);
			if (write(fdp[i][1], &ok, sizeof(ok)) != sizeof(ok))
				_exit(2);
			fflush(stdout);
			_exit(0);
		}
		close(fdp[i][1]);
	}
	for (int i = 0; i < n; i++) {
		unsigned int ok = 0;
		int status = 0;
		ssize_t got = read(fdp[i][0], &ok, sizeof(ok));

		waitpid(pid[i], &status, 0);
		close(fdp[i][0]);
		if (got != sizeof(ok) || !WIFEXITED(status) || WEXITSTATUS(status))
			ok = 0;
		for (int k = 0; k < NCHECK; k++)
			tap_ok(ok >> k & 1, "rank %d of %d, one process per card, %s: %s",
			       i, n, label, check_name[k]);
	}
}

/* The calls that need no communicator. */
static void t_api(void)
{
	char text[M890_UNIQUE_ID_STRLEN], again[M890_UNIQUE_ID_STRLEN];
	m890_unique_id_t a, b, zero;
	m890_device_t dev;
	m890_comm_t comm;
	int ok;

	TAP_STATUS(m890_group_end(), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_group_start(), M890_SUCCESS);
	TAP_STATUS(m890_group_end(), M890_SUCCESS);
	TAP_STATUS(m890_get_unique_id(NULL, NULL), M890_ERROR_INVALID_ARGUMENT);
	TAP_REQUIRE(m890_get_unique_id(NULL, &a));
	TAP_REQUIRE(m890_get_unique_id(NULL, &b));
	tap_ok(memcmp(&a, &b, sizeof(a)) != 0, "two ids differ");
	ok = !m890_unique_id_to_string(&a, text, sizeof(text)) &&
	     !strncmp(text, "m890-socket:", 12) &&
	     !m890_unique_id_from_string(text, &b) &&
	     !m890_unique_id_to_string(&b, again, sizeof(again)) && !strcmp(text, again);
	tap_ok(ok, "a socket id as text and back: %s", text);
	TAP_REQUIRE(m890_device_open(0, &dev));
	TAP_REQUIRE(m890_get_unique_id(dev, &a));
	ok = !m890_unique_id_to_string(&a, text, sizeof(text)) &&
	     !m890_unique_id_from_string(text, &b) && !memcmp(&a, &b, sizeof(a));
	tap_ok(ok, "an id made with card 0 as text and back: %s", text);
	TAP_STATUS(m890_unique_id_to_string(&a, text, 10), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_unique_id_from_string("m890-fabric:12:0", &b),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_unique_id_from_string("m890-socket:00000000000000ab:tmp/x", &b),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_unique_id_from_string("m890-fabric:0000000000000000:0", &b),
		   M890_ERROR_INVALID_ARGUMENT);
	memset(&zero, 0, sizeof(zero));
	TAP_STATUS(m890_comm_init_rank(&zero, 1, 0, dev, NULL, &comm),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_comm_init_rank(&a, 2, 2, dev, NULL, &comm),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_comm_init_rank(&a, 1, 0, dev, NULL, &comm), M890_SUCCESS);
	TAP_STATUS(m890_comm_destroy(comm), M890_SUCCESS);
	TAP_REQUIRE(m890_device_close(dev));
}

/* This VM's cards of a communicator over fabric ids FIRST..LAST. */
static int vms(const char *text, int first, int last)
{
	struct rk r[MAXN];
	struct ctx c = { .n = last - first + 1, .per_rank = true, .r = r };
	m890_unique_id_t id;
	unsigned int ok = 0;
	int m, good = 1;

	if (m890_unique_id_from_string(text, &id) || m890_device_count(&m) || m < 1) {
		tap_ok(0, "across VMs: id %s, cards (%s)", text, m890_get_last_error());
		return tap_done();
	}
	c.m = m > c.n ? c.n : m;
	for (int l = 0; l < c.m && good; l++) {
		struct m890_device_info info = M890_DEVICE_INFO_INIT;

		good = rank_open(&r[l], l) && !m890_device_get_info(r[l].dev, &info) &&
		       (int)info.fabric_id >= first && (int)info.fabric_id <= last;
		r[l].rank = (int)info.fabric_id - first;
	}
	if (good)
		ok = run(&c, &id);
	for (int k = 0; k < NCHECK; k++)
		tap_ok(ok >> k & 1, "%d ranks across VMs, %d here: %s", c.n, c.m,
		       check_name[k]);
	return tap_done();
}

/*
 * No arguments: the API checks, then every card in one process, one
 * process per card at a socket and through the switch.
 * --vms ID FIRST-LAST: this VM's part over fabric ids FIRST..LAST, the
 * id as text (tests/guest/m890-vm-fabric.sh).
 */
int main(int argc, char **argv)
{
	struct m890_device_info info = M890_DEVICE_INFO_INIT;
	m890_unique_id_t id;
	m890_device_t d;
	int n, first, last;

	if (argc == 4 && !strcmp(argv[1], "--vms")) {
		if (sscanf(argv[3], "%d-%d", &first, &last) != 2 || first < 0 ||
		    last < first || last - first + 1 > MAXN) {
			fprintf(stderr, "usage: %s [--vms ID FIRST-LAST]\n", argv[0]);
			return 2;
		}
		return vms(argv[2], first, last);
	}
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--vms ID FIRST-LAST]\n", argv[0]);
		return 2;
	}
	if (m890_device_count(&n) || n < 1) {
		tap_skip("no card", "groups and unique ids");
		return tap_done();
	}
	if (n > MAXN)
		n = MAXN;
	t_api();
	single_process(n);
	if (n < 2) {
		tap_skip("needs two cards", "one process per card");
		return tap_done();
	}
	TAP_REQUIRE(m890_get_unique_id(NULL, &id));
	per_process(n, &id, true, "socket id");
	TAP_REQUIRE(m890_device_open(0, &d));
	TAP_REQUIRE(m890_device_get_info(d, &info));
	TAP_REQUIRE(m890_get_unique_id(d, &id));
	TAP_REQUIRE(m890_device_close(d));
	if (info.capabilities & M890_CAP_FABRIC_WINDOWS)
		per_process(n, &id, false, "through the switch");
	else
		tap_skip("no fabric windows", "one process per card through the switch");
	return tap_done();
}
