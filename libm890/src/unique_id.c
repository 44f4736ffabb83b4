// SPDX-License-Identifier: MIT
/*
 * DOC: communicators from a unique id (m890_get_unique_id(),
 * m890_comm_init_rank(), m890_comm_init_ranks())
 *
 * An id is made once (by any process, usually rank 0's) and handed to
 * every process of the communicator by the caller's own means (fork, a
 * launcher's environment, a file); it names the communicator and how its
 * ranks meet:
 *
 * - a fabric id (made with a card that has fabric windows): a random
 *   64-bit communicator id and the fabric id of that card, the meeting
 *   card.  Each process writes, through a window on a small meeting area
 *   that the meeting card's process exports under a key derived from the
 *   communicator id, the fabric id of each of its ranks' cards into the
 *   rank's slot (one SIGNAL), then reads the slots until every rank's is
 *   filled.  With the table of every rank's fabric id, it builds the
 *   communicator with m890_comm_create_fabric() and the same communicator
 *   id: ranks in one process, in one process per card or in several VMs
 *   alike.  The meeting card's process withdraws the area once its
 *   communicator is built, which needs every peer's semaphore area, which
 *   each peer exports only after it has read the whole table.
 * - a socket id (made without a card, or with one without fabric windows):
 *   a random 64-bit id and a Unix socket path made from 128 random bits,
 *   for processes of one machine, one rank each: m890_comm_create_rank().
 *
 * Either kind also builds a communicator of every rank in one process
 * (m890_comm_create()) when one call passes all the ranks.  The ids are
 * drawn with getrandom(2): unguessable, so that another communicator
 * (or another user) cannot meet at the same place by accident.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "internal.h"

#define UID_MAGIC	0x4d385549u	/* "M8UI" */
#define UID_VERSION	1
#define MEET_MAGIC	0x4d384d4545543031ull	/* "M8MEET01" */
#define MEET_HDR	32u

enum uid_kind {
	UID_FABRIC = 1,
	UID_SOCKET = 2,
};

/* The bytes of an m890_unique_id_t. */
struct uid {
	uint32_t magic;
	uint16_t version;
	uint16_t kind;			/* enum uid_kind */
	uint64_t comm_id;		/* non-zero */
	uint32_t root_fid;		/* UID_FABRIC: the meeting card */
	uint32_t reserved;
	char path[96];			/* UID_SOCKET: NUL-terminated */
};

_Static_assert(sizeof(struct uid) <= M890_UNIQUE_ID_BYTES, "unique id too small");

static m890_status_t uid_random(void *p, size_t len)
{
	unsigned char *b = p;
	size_t got = 0;

	while (got < len) {
		ssize_t r = getrandom(b + got, len - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return m890_fail_errno(errno, "get_unique_id: getrandom");
		got += (size_t)r;
	}
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_get_unique_id(m890_device_t device,
					     m890_unique_id_t *id)
{
	M890_API_SCOPE;
	struct uid u;
	uint64_t r[2];
	m890_status_t st;

	if (!id)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT, "get_unique_id: NULL output");
	if (device) {
		st = m890_check(device, M890_OBJ_DEVICE, "device");
		if (st)
			return st;
	}
	memset(&u, 0, sizeof(u));
	u.magic = UID_MAGIC;
	u.version = UID_VERSION;
	do {
		st = uid_random(&u.comm_id, sizeof(u.comm_id));
	} while (!st && !u.comm_id);
	if (!st)
		st = uid_random(r, sizeof(r));
	if (st)
		return st;
	if (device && (device->info.capabilities & DRM_M890_CAP_FABRIC_WINDOWS) &&
	    device->info.fabric_id != M890_DEVICE_NO_FABRIC) {
		u.kind = UID_FABRIC;
		u.root_fid = device->info.fabric_id;
	} else {
		u.kind = UID_SOCKET;
		snprintf(u.path, sizeof(u.path), "/tmp/m890-%016" PRIx64 "%016" PRIx64 ".sock",
			 r[0], r[1]);
	}
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, &u, sizeof(u));
	return M890_SUCCESS;
}

/* @id's contents, checked. */
static m890_status_t uid_get(const m890_unique_id_t *id, const char *what,
			     struct uid *u)
{
	if (!id)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT, "%s: NULL id", what);
	memcpy(u, id->internal, sizeof(*u));
	if (u->magic != UID_MAGIC || u->version != UID_VERSION || !u->comm_id ||
	    (u->kind != UID_FABRIC && u->kind != UID_SOCKET) || u->reserved ||
	    (u->kind == UID_SOCKET && (u->path[0] != '/' ||
				       !memchr(u->path, 0, sizeof(u->path)))))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: not an id of m890_get_unique_id() or m890_unique_id_from_string()",
				 what);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_unique_id_to_string(const m890_unique_id_t *id,
						   char *buf, size_t len)
{
	M890_API_SCOPE;
	struct uid u;
	m890_status_t st = uid_get(id, "unique_id_to_string", &u);
	int w;

	if (st)
		return st;
	if (!buf)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT, "unique_id_to_string: NULL buffer");
	if (u.kind == UID_FABRIC)
		w = snprintf(buf, len, "m890-fabric:%016" PRIx64 ":%u", u.comm_id,
			     u.root_fid);
	else
		w = snprintf(buf, len, "m890-socket:%016" PRIx64 ":%s", u.comm_id,
			     u.path);
	if (w < 0 || (size_t)w >= len)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "unique_id_to_string: %zu bytes are too few (M890_UNIQUE_ID_STRLEN)",
				 len);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_unique_id_from_string(const char *text,
						     m890_unique_id_t *id)
{
	M890_API_SCOPE;
	static const char *const bad =
		"unique_id_from_string: not m890-fabric:<16 hex digits>:<fabric id> or m890-socket:<16 hex digits>:<absolute path>";
	struct uid u;
	unsigned int fid;
	int used = 0;

	if (!text || !id)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT, "unique_id_from_string: NULL argument");
	memset(&u, 0, sizeof(u));
	u.magic = UID_MAGIC;
	u.version = UID_VERSION;
	if (!strncmp(text, "m890-fabric:", 12)) {
		u.kind = UID_FABRIC;
		if (sscanf(text + 12, "%16" SCNx64 ":%u%n", &u.comm_id, &fid, &used) != 2 ||
		    text[12 + used] || text[28] != ':' || fid >= M890_DEVICE_NO_FABRIC)
			return m890_fail(M890_ERROR_INVALID_ARGUMENT, "%s", bad);
		u.root_fid = fid;
	} else if (!strncmp(text, "m890-socket:", 12)) {
		u.kind = UID_SOCKET;
		if (sscanf(text + 12, "%16" SCNx64 "%n", &u.comm_id, &used) != 1 ||
		    used != 16 || text[28] != ':' || text[29] != '/' ||
		    strlen(text + 29) >= sizeof(u.path))
			return m890_fail(M890_ERROR_INVALID_ARGUMENT, "%s", bad);
		snprintf(u.path, sizeof(u.path), "%s", text + 29);
	} else {
		return m890_fail(M890_ERROR_INVALID_ARGUMENT, "%s", bad);
	}
	if (!u.comm_id)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "unique_id_from_string: the communicator id is 0");
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, &u, sizeof(u));
	return M890_SUCCESS;
}

/* ---- the meeting through the switch ---- */

static uint64_t meet_key(uint64_t comm_id)
{
	uint64_t x = comm_id ^ 0x6d38206d65657421ull;

	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	x ^= x >> 33;
	return x ? x : 2;
}

struct meet {
	m890_stream_t s;
	m890_buffer_t area;		/* the meeting card's process: HBM */
	m890_buffer_t host;		/* mapped copy of the area */
	volatile uint64_t *hp;
	m890_window_t win;		/* the others: window on the area */
	uint64_t va;			/* of the area on @s's card */
};

static void meet_close(struct meet *mt, bool keep_area)
{
	if (mt->s) {
		m890_stream_synchronize(mt->s);
		m890_stream_destroy(mt->s);
	}
	if (mt->win)
		m890_window_free(mt->win);
	if (mt->host)
		m890_buffer_free(mt->host);
	if (mt->area && !keep_area) {
		m890_buffer_revoke_fabric(mt->area);
		m890_buffer_free(mt->area);
		mt->area = NULL;
	}
	mt->s = NULL;
	mt->win = NULL;
	mt->host = NULL;
}

/* Copy the area's @bytes into the host copy; false on a stream error. */
static m890_status_t meet_read(struct meet *mt, uint64_t bytes)
{
	uint64_t hva;
	m890_status_t st = m890_buffer_va(mt->host, &hva);

	if (!st)
		st = m890_memcpy(mt->s, hva, mt->va, bytes);
	if (!st)
		st = m890_stream_synchronize(mt->s);
	return st;
}

/*
 * The meeting card's process opens the meeting: an area of @bytes,
 * zeroed (the host copy @mt->hp is) but for the header (magic, number
 * of ranks), exported under the id's meeting key.
 */
static m890_status_t meet_open(const struct uid *u, int n, uint64_t bytes,
			       struct m890_device *md, struct meet *mt)
{
	m890_status_t st;
	uint64_t hva;

	mt->hp[0] = MEET_MAGIC;
	mt->hp[1] = (uint64_t)n;
	st = m890_buffer_alloc(md, bytes, M890_MEM_HBM, &mt->area);
	if (!st)
		st = m890_buffer_va(mt->host, &hva);
	if (!st)
		st = m890_buffer_va(mt->area, &mt->va);
	if (!st)
		st = m890_memcpy(mt->s, mt->va, hva, bytes);
	if (!st)
		st = m890_stream_synchronize(mt->s);
	if (!st)
		st = m890_buffer_export_fabric(mt->area, meet_key(u->comm_id));
	return st;
}

/*
 * The other processes join it: a window on the meeting card's area,
 * waiting until it is exported, and its header checked (@n ranks).
 */
static m890_status_t meet_join(const struct uid *u, int n, uint64_t bytes,
			       struct m890_device *md, int64_t deadline,
			       struct meet *mt)
{
	m890_status_t st;

	for (;;) {
		int err = m890_window_import_fabric(md, u->root_fid,
						    meet_key(u->comm_id), &mt->win);

		if (!err)
			break;
		if (err == EPERM)
			return m890_fail(M890_ERROR_NOT_SUPPORTED,
					 "%s cannot reach the meeting card (fabric id %u): another partition",
					 md->node, u->root_fid);
		if (err != ENOENT && err != ENOLINK)
			return m890_fail_wrap(m890_errno_status(err) ?
					      m890_errno_status(err) : M890_ERROR_SYSTEM,
					      NULL, "window on the meeting card (fabric id %u)",
					      u->root_fid);
		if (!m890_peer_poll_again(deadline))
			return m890_fail(M890_ERROR_TIMEOUT,
					 "the meeting card (fabric id %u) did not open the meeting in time (no rank runs on it yet?)",
					 u->root_fid);
	}
	st = m890_window_va(mt->win, &mt->va);
	if (!st && mt->win->bytes < MEET_HDR)
		st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
			       "the meeting area on fabric id %u is too small", u->root_fid);
	if (!st)
		st = meet_read(mt, MEET_HDR);
	if (st)
		return st;
	if (mt->hp[0] != MEET_MAGIC || mt->hp[1] != (uint64_t)n ||
	    mt->win->bytes < bytes)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "the meeting on fabric id %u is for %llu ranks, this process passes %d",
				 u->root_fid, (unsigned long long)mt->hp[1], n);
	return M890_SUCCESS;
}

/*
 * Each local rank writes its slot (its card's fabric id + 1), then every
 * rank's slot is read until all are set: @fids[n] in rank order.
 */
static m890_status_t meet_wait_all(const struct uid *u, int n, int m,
				   const int *ranks, const m890_device_t *devs,
				   uint64_t bytes, int64_t deadline,
				   struct meet *mt, uint32_t *fids)
{
	m890_status_t st = M890_SUCCESS;

	for (int l = 0; l < m && !st; l++)
		st = m890_signal(mt->s, mt->va + MEET_HDR + 8ull * (uint64_t)ranks[l],
				 (uint64_t)devs[l]->info.fabric_id + 1, M890_SEM_SET);
	for (;;) {
		int missing = -1, count = 0;

		if (!st)
			st = meet_read(mt, bytes);
		if (st)
			return st;
		for (int r = 0; r < n; r++)
			if (!mt->hp[MEET_HDR / 8 + r]) {
				if (missing < 0)
					missing = r;
				count++;
			}
		if (missing < 0)
			break;
		if (!m890_peer_poll_again(deadline))
			return m890_fail(M890_ERROR_TIMEOUT,
					 "rank %d%s did not join the meeting on fabric id %u in time",
					 missing, count > 1 ? " and others" : "", u->root_fid);
	}
	for (int r = 0; r < n; r++)
		fids[r] = (uint32_t)(mt->hp[MEET_HDR / 8 + r] - 1);
	for (int l = 0; l < m; l++)
		if (fids[ranks[l]] != devs[l]->info.fabric_id)
			return m890_fail(M890_ERROR_INVALID_ARGUMENT,
					 "rank %d is claimed by the cards of fabric ids %u and %u",
					 ranks[l], devs[l]->info.fabric_id, fids[ranks[l]]);
	return M890_SUCCESS;
}

/*
 * Meet the other ranks of @u over the switch: @fids[nranks] returned in
 * rank order.  The meeting card's process keeps @mt->area (exported)
 * until its communicator is built.
 */
static m890_status_t meet_fabric(const struct uid *u, int n, int m,
				 const int *ranks, const m890_device_t *devs,
				 int64_t deadline, struct meet *mt, uint32_t *fids)
{
	uint64_t bytes = MEET_HDR + 8ull * (uint64_t)n;
	struct m890_device *md = devs[0];
	m890_status_t st;
	void *p;
	int root = -1;

	for (int l = 0; l < m; l++)
		if (devs[l]->info.fabric_id == u->root_fid)
			root = l;
	if (root >= 0)
		md = devs[root];
	st = m890_stream_create(md, &mt->s);
	if (!st)
		st = m890_buffer_alloc(md, bytes, M890_MEM_HOST, &mt->host);
	if (!st)
		st = m890_buffer_map(mt->host, &p);
	if (st)
		return st;
	mt->hp = p;
	if (root >= 0)
		memset(p, 0, bytes);
	st = root >= 0 ? meet_open(u, n, bytes, md, mt) :
	     meet_join(u, n, bytes, md, deadline, mt);
	if (!st)
		st = meet_wait_all(u, n, m, ranks, devs, bytes, deadline, mt, fids);
	return st;
}

M890_EXPORT m890_status_t
m890_comm_init_ranks(const m890_unique_id_t *id, int nranks, int ndevices,
		     const int *ranks, const m890_device_t *devices,
		     const struct m890_comm_config *config, m890_comm_t *comm)
{
	M890_API_SCOPE;
	static const char what[] = "comm_init_ranks";
	struct m890_comm_config def = M890_COMM_CONFIG_INIT;
	struct m890_comm_fabric_config fc = M890_COMM_FABRIC_CONFIG_INIT;
	uint32_t fids[M890_COMM_MAX_RANKS];
	struct meet mt = { 0 };
	m890_status_t st;
	struct uid u;

	st = uid_get(id, what, &u);
	if (st)
		return st;
	if (!comm || !ranks || !devices || nranks < 1 || nranks > M890_COMM_MAX_RANKS ||
	    ndevices < 1 || ndevices > nranks)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: need 1..%d ranks, 1..nranks devices with their ranks, and an output",
				 what, M890_COMM_MAX_RANKS);
	for (int l = 0; l < ndevices; l++) {
		st = m890_check(devices[l], M890_OBJ_DEVICE, "device");
		if (st)
			return st;
		if (ranks[l] < 0 || ranks[l] >= nranks || (l && ranks[l] <= ranks[l - 1]))
			return m890_fail(M890_ERROR_INVALID_ARGUMENT,
					 "%s: ranks must increase within 0..%d (entry %d is %d)",
					 what, nranks - 1, l, ranks[l]);
	}
	if (ndevices == nranks)
		return m890_comm_create(devices, nranks, config, comm);
	if (u.kind == UID_SOCKET) {
		if (ndevices != 1)
			return m890_fail(M890_ERROR_INVALID_ARGUMENT,
					 "%s: an id made without fabric windows takes one rank per process (or every rank in one); this process passes %d of %d",
					 what, ndevices, nranks);
		return m890_comm_create_rank(devices[0], ranks[0], nranks, u.path,
					     config, comm);
	}
	if (!config)
		config = &def;
	if (config->size < sizeof(*config) || config->magic != M890_COMM_CONFIG_MAGIC ||
	    config->version != M890_COMM_CONFIG_VERSION || config->flags)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: config not initialized with M890_COMM_CONFIG_INIT, or unknown flags",
				 what);
	for (int l = 0; l < ndevices; l++)
		if (!(devices[l]->info.capabilities & DRM_M890_CAP_FABRIC_WINDOWS))
			return m890_fail(M890_ERROR_NOT_SUPPORTED,
					 "%s: %s has no fabric windows; the id's ranks meet through the switch",
					 what, devices[l]->node);
	st = meet_fabric(&u, nranks, ndevices, ranks, devices,
			 config->timeout_ns == M890_TIMEOUT_INFINITE ? INT64_MAX :
			 m890_monotonic_ns() + (int64_t)config->timeout_ns, &mt, fids);
	if (st) {
		struct m890_saved_error cause;

		m890_error_save(&cause);
		meet_close(&mt, false);
		return m890_fail_wrap(st, &cause, "%s", what);
	}
	meet_close(&mt, true);
	fc.comm_id = u.comm_id;
	fc.nranks = nranks;
	fc.ndevices = ndevices;
	fc.fabric_ids = fids;
	fc.devices = devices;
	st = m890_comm_create_fabric(&fc, config, comm);
	/* Every peer has read the table once this process could build. */
	if (mt.area) {
		m890_buffer_revoke_fabric(mt.area);
		m890_buffer_free(mt.area);
	}
	return st;
}

M890_EXPORT m890_status_t m890_comm_init_rank(const m890_unique_id_t *id,
					      int nranks, int rank,
					      m890_device_t device,
					      const struct m890_comm_config *config,
					      m890_comm_t *comm)
{
	M890_API_SCOPE;
	return m890_comm_init_ranks(id, nranks, 1, &rank, &device, config, comm);
}
