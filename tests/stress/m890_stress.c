// SPDX-License-Identifier: MIT
/*
 * m890_stress: random valid and invalid ioctl sequences on the m890 accel
 * devices, from several processes of several threads each, with device
 * resets (debugfs force_reset and PCIe FLR), queue destroys, closes and
 * SIGKILLs mixed in.  Documentation/testing.rst, "The ioctl stress test".
 *
 *   m890_stress [--seed N] [--procs N] [--threads N] [--ops N] [--cards N]
 *               [--kills N] [--resets N] [--flr-pct P] [--timeout S] [--verbose]
 *
 * Resets go through debugfs force_reset, and with --flr-pct P through a
 * PCIe FLR P% of the time (default 0: under TCG with several vCPUs QEMU
 * 10.0 may abort when the FLR changes the memory map while another vCPU
 * touches the card's BARs through a stale TLB entry, as in the hot-unplug
 * test; Documentation/testing.rst).
 *
 * The run is seeded: the seed is printed first, and --seed replays the same
 * operation sequence in every thread and the same sequence of kills and
 * resets in the supervisor (their timing against each other follows the
 * scheduler, so a race may need several replays).  Each worker thread
 * draws its operations from its own generator, derived from the seed, the
 * worker's index, how often that worker was killed and restarted, and the
 * thread's index.
 *
 * What is checked here: an operation built to be invalid (bad flags or
 * pads, size 0, unknown handles or queues, FENCE packets, counts out of
 * range, unreadable pointers) must fail with its documented errno; a valid
 * one may fail only with an errno the uAPI documents for the situations
 * the stress creates (resets, faults, full rings, concurrent destroys);
 * every CPU mapping stays readable and writable; after the run every
 * card's HBM is back to its level before the run and every card still
 * runs a job.  Everything the kernel notices itself (KASAN, lockdep,
 * WARN) is caught by the guest's /init and the host's console scan.
 * Prints TAP; exits non-zero on any failure.
 */

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include <drm/m890_accel.h>

#define MAX_CARDS	64
#define MAX_PROCS	32
#define MAX_THREADS	16
#define SLOTS		4	/* open files per worker process */
#define SLOT_BOS	24
#define SLOT_QUEUES	4
#define MAX_EXPORTS	16
#define MAX_PKTS	8
#define SLOT_HBM_CAP	(8ull << 20)	/* HBM a slot allocates at most */
#define SLOT_HOST_CAP	(8ull << 20)

/* ---- the generator: splitmix64 ---- */

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); 0 for n == 0. */
static uint64_t rng_below(struct rng *r, uint64_t n)
{
	return n ? rng_next(r) % n : 0;
}

static bool rng_pct(struct rng *r, unsigned int pct)
{
	return rng_below(r, 100) < pct;
}

static struct rng rng_derive(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	struct rng r = { seed };

	r.s = rng_next(&r) ^ (a * 0x100000001b3ull);
	r.s = rng_next(&r) ^ (b * 0xc2b2ae3d27d4eb4full);
	r.s = rng_next(&r) ^ (c * 0x165667b19e3779f9ull);
	return r;
}

/* ---- options ---- */

static struct {
	uint64_t seed;
	int procs, threads, ops, cards, kills, resets, flr_pct, timeout_s;
	bool verbose;
} opt = {
	.procs = 3, .threads = 3, .ops = 300, .kills = 4, .resets = 4, .timeout_s = 900,
};

/* ---- reporting: workers print findings as TAP comments ---- */

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int *findings;	/* shared by every process (a killed worker's count too) */
static int worker_index = -1;

static void finding(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	__atomic_add_fetch(findings, 1, __ATOMIC_RELAXED);
	printf("# FINDING (worker %d): ", worker_index);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

static void note(const char *fmt, ...)
{
	va_list ap;

	if (!opt.verbose)
		return;
	pthread_mutex_lock(&out_lock);
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && errno == EINTR);
	return ret == -1 ? -errno : 0;
}

/* Is -@err one of the (positive) errnos in the 0-terminated list? */
static bool err_in(int err, const int *list)
{
	for (; *list; list++)
		if (-err == *list)
			return true;
	return false;
}

/* An invalid operation: must fail with -@want. */
static void expect_err(const char *what, int got, int want)
{
	if (got != -want)
		finding("%s: returned %d (%s), expected -%s", what, got,
			got ? strerror(-got) : "success", strerrorname_np(want));
}

/*
 * The same for an invalid operation on a handle or queue another thread
 * may have closed or destroyed meanwhile: -ENOENT (or -EIO for a stopped
 * queue) is as good, the order of the driver's checks being its own.
 */
static void expect_err_stale(const char *what, int got, int want)
{
	if (got != -ENOENT && got != -EIO)
		expect_err(what, got, want);
}

/* A valid operation: 0 or one of the errnos in @allowed. */
static void expect_ok(const char *what, int got, const int *allowed)
{
	if (got && !err_in(got, allowed))
		finding("%s: unexpected error %d (%s)", what, got, strerror(-got));
}

/* The errnos a valid operation may meet under stress (uapi.rst). */
static const int ok_create[] = { ENOSPC, ENOMEM, EBUSY, EDQUOT, ENODEV, 0 };
static const int ok_submit[] = { EIO, ENOENT, EAGAIN, EINTR, ENODEV, 0 };
static const int ok_handle[] = { ENOENT, 0 };
static const int ok_wait[] = { ETIME, ENOENT, EINTR, ERESTART, 0 };
static const int ok_sync[] = { ETIME, EINVAL, ENOENT, EINTR, 0 };
static const int ok_export[] = { EEXIST, ENOSPC, ENOENT, ENODEV, EPERM, EINVAL, 0 };
static const int ok_import[] = { ENOENT, EPERM, ENOLINK, ENODEV, ENOMEM, ENOSPC, EDQUOT, EIO,
				 EINVAL, 0 };

/* ---- the cards ---- */

struct card {
	int minor;	/* /dev/accel/accel<minor> (a rebound card gets a new one) */
	char bdf[32];
	struct drm_m890_device_info info;
};

static struct card cards[MAX_CARDS];
static int ncards;

static int open_minor(int minor)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/accel/accel%d", minor);
	return open(path, O_RDWR | O_CLOEXEC);
}

static int open_card(int c)
{
	return open_minor(cards[c].minor);
}

static int query_info(int fd, struct drm_m890_device_info *info)
{
	struct drm_m890_query q = {
		.type = DRM_M890_QUERY_DEVICE_INFO,
		.size = sizeof(*info),
		.data = (uintptr_t)info,
	};

	memset(info, 0, sizeof(*info));
	return xioctl(fd, DRM_IOCTL_M890_QUERY, &q);
}

static int card_bdf(int minor, char *buf, size_t len)
{
	char link[80], *dev, *slash;

	snprintf(link, sizeof(link), "/sys/class/accel/accel%d/device", minor);
	dev = realpath(link, NULL);
	if (!dev)
		return -errno;
	slash = strrchr(dev, '/');
	snprintf(buf, len, "%s", slash ? slash + 1 : dev);
	free(dev);
	return 0;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	if (n < 0)
		return -errno;
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* HBM bytes in use on card @c (debugfs "hbm": "used N total N"), or -1. */
static long long hbm_used(int c)
{
	char path[128], buf[256];
	long long used;

	snprintf(path, sizeof(path), "/sys/kernel/debug/accel/%s/hbm", cards[c].bdf);
	if (read_file(path, buf, sizeof(buf)) || sscanf(buf, "used %lld", &used) != 1)
		return -1;
	return used;
}

/* ---- a worker's open files ("slots") and what they hold ---- */

struct bo {
	__u32 handle;
	__u32 flags;	/* DRM_M890_BO_*, DRM_M890_BO_PEER for windows */
	__u64 size, va, mmap_offset;
	bool exported;
};

struct queue {
	__u32 id, syncobj;
	__u64 last_seqno;
};

struct slot {
	pthread_rwlock_t lock;	/* read: an operation on the file; write: reopen */
	pthread_mutex_t mu;	/* the lists below */
	int fd, card;
	struct bo bos[SLOT_BOS];
	int nbos;
	struct queue queues[SLOT_QUEUES];
	int nqueues;
	__u64 hbm_bytes, host_bytes;
};

struct export {
	__u32 fabric_id;
	__u64 key;
};

static struct slot slots[SLOTS];
static pthread_mutex_t exports_mu = PTHREAD_MUTEX_INITIALIZER;
static struct export exports[MAX_EXPORTS];
static int nexports;

static bool pick_bo(struct slot *s, struct rng *r, struct bo *out, __u32 need_flags)
{
	bool found = false;
	int i, start;

	pthread_mutex_lock(&s->mu);
	if (s->nbos) {
		start = rng_below(r, s->nbos);
		for (i = 0; i < s->nbos; i++) {
			struct bo *b = &s->bos[(start + i) % s->nbos];

			if (!need_flags || (b->flags & need_flags)) {
				*out = *b;
				found = true;
				break;
			}
		}
	}
	pthread_mutex_unlock(&s->mu);
	return found;
}

/* Take a BO out of the slot's list (the caller then closes its handle). */
static bool take_bo(struct slot *s, struct rng *r, struct bo *out)
{
	int i;

	pthread_mutex_lock(&s->mu);
	if (!s->nbos) {
		pthread_mutex_unlock(&s->mu);
		return false;
	}
	i = rng_below(r, s->nbos);
	*out = s->bos[i];
	s->bos[i] = s->bos[--s->nbos];
	if (out->flags & DRM_M890_BO_HBM)
		s->hbm_bytes -= out->size;
	else if (out->flags & DRM_M890_BO_HOST)
		s->host_bytes -= out->size;
	pthread_mutex_unlock(&s->mu);
	return true;
}

/*
 * Add a BO; false (the caller closes it) when the list is full.  A handle
 * already listed (an import of a BO the file holds returns its handle)
 * is not listed twice.
 */
static bool add_bo(struct slot *s, const struct bo *b)
{
	bool ok = false;
	int i;

	pthread_mutex_lock(&s->mu);
	for (i = 0; i < s->nbos; i++) {
		if (s->bos[i].handle == b->handle) {
			pthread_mutex_unlock(&s->mu);
			return true;
		}
	}
	if (s->nbos < SLOT_BOS) {
		s->bos[s->nbos++] = *b;
		if (b->flags & DRM_M890_BO_HBM)
			s->hbm_bytes += b->size;
		else if (b->flags & DRM_M890_BO_HOST)
			s->host_bytes += b->size;
		ok = true;
	}
	pthread_mutex_unlock(&s->mu);
	return ok;
}

static bool pick_queue(struct slot *s, struct rng *r, struct queue *out)
{
	bool found = false;

	pthread_mutex_lock(&s->mu);
	if (s->nqueues) {
		*out = s->queues[rng_below(r, s->nqueues)];
		found = true;
	}
	pthread_mutex_unlock(&s->mu);
	return found;
}

static void note_seqno(struct slot *s, __u32 id, __u64 seqno)
{
	int i;

	pthread_mutex_lock(&s->mu);
	for (i = 0; i < s->nqueues; i++)
		if (s->queues[i].id == id && s->queues[i].last_seqno < seqno)
			s->queues[i].last_seqno = seqno;
	pthread_mutex_unlock(&s->mu);
}

static void gem_close(int fd, __u32 handle)
{
	struct drm_gem_close c = { .handle = handle };

	/* DRM answers -EINVAL for a handle it does not know */
	expect_ok("GEM_CLOSE", xioctl(fd, DRM_IOCTL_GEM_CLOSE, &c), (const int[]){ EINVAL, 0 });
}

/* ---- CPU access to mappings: a fault there is a finding ---- */

static __thread sigjmp_buf touch_jmp;
static __thread volatile sig_atomic_t touching;

static void touch_fault(int sig, siginfo_t *si, void *uc)
{
	char msg[96];
	void *bt[32];
	int len, n;

	(void)uc;
	if (touching)
		siglongjmp(touch_jmp, sig);
	/* Not in a CPU access to a mapping: say where, then die of it. */
	len = snprintf(msg, sizeof(msg), "# worker %d: signal %d at address %p\n", worker_index,
		       sig, si->si_addr);
	if (write(STDOUT_FILENO, msg, len) < 0)
		_exit(3);
	n = backtrace(bt, 32);
	backtrace_symbols_fd(bt, n, STDOUT_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Read and write the first and last word of [p, p + len). */
static void touch(const char *what, void *p, size_t len, uint32_t pat)
{
	volatile uint32_t *first = p, *last = (volatile uint32_t *)((char *)p + len - 4);
	int sig;

	touching = 1;
	sig = sigsetjmp(touch_jmp, 1);
	if (!sig) {
		(void)*first;
		*first = pat;
		(void)*last;
		*last = pat;
	} else {
		finding("%s: signal %d on a CPU access to a mapping", what, sig);
	}
	touching = 0;
}

/* ---- packets ---- */

/* A VA inside @b, @align-aligned, with at least @need bytes after it. */
static __u64 va_in(struct rng *r, const struct bo *b, __u64 need, __u64 align)
{
	__u64 room = b->size > need ? b->size - need : 0;

	return b->va + (rng_below(r, room / align + 1) * align);
}

/*
 * One packet for slot @s.  Returns 1 when it is built to be valid and the
 * driver must accept it, 0 when it may be refused (random fields, or
 * packets whose validity depends on memory contents), -1 when it must be
 * refused with -EINVAL (a FENCE or a reserved bit set).
 */
static int gen_packet(struct slot *s, struct rng *r, union m890_packet *p)
{
	struct bo a, b;
	unsigned int k = rng_below(r, 100);
	__u64 n;

	memset(p, 0, sizeof(*p));
	if (k < 4) {
		p->hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
		return -1;
	}
	if (k < 8) {
		p->hdr = M890_PKT_HDR(M890_PKT_NOP, 0) | M890_PKT_HDR_RSVD;
		return -1;
	}
	if (k < 16) {		/* random bits, random opcode */
		for (int i = 0; i < 16; i++)
			p->dw[i] = (uint32_t)rng_next(r);
		if (rng_pct(r, 70))
			p->hdr &= 0x0f;
		return 0;
	}
	if (k < 17) {		/* a wild address: an MMU fault of the context */
		p->fill.hdr = M890_PKT_HDR(M890_PKT_FILL, 0);
		p->fill.dst = rng_next(r) & ~3ull;
		p->fill.size = 4096;
		return 0;
	}
	if (!pick_bo(s, r, &a, 0)) {
		p->nop.hdr = M890_PKT_HDR(M890_PKT_NOP, 0);
		return 1;
	}
	if (!pick_bo(s, r, &b, 0))
		b = a;
	switch (k % 8) {
	case 0:
		p->nop.hdr = M890_PKT_HDR(M890_PKT_NOP, 0);
		return 1;
	case 1:
		n = (rng_below(r, a.size / 4) + 1) * 4;
		p->fill.hdr = M890_PKT_HDR(M890_PKT_FILL, 0);
		p->fill.pattern = (uint32_t)rng_next(r);
		p->fill.dst = va_in(r, &a, n, 4);
		p->fill.size = n;
		return 1;
	case 2:
		n = rng_below(r, (a.size < b.size ? a.size : b.size) + 1);
		p->copy.hdr = M890_PKT_HDR(M890_PKT_COPY, 0);
		p->copy.src = va_in(r, &a, n, 1);
		p->copy.dst = va_in(r, &b, n, 1);
		p->copy.size = n;
		return 1;
	case 3:
		p->signal.hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
		p->signal.op = rng_below(r, 2);
		p->signal.addr = va_in(r, &a, 8, 8);
		p->signal.value = rng_below(r, 1000);
		return 1;
	case 4:
		/* Mostly at once; now and then one the job timeout must cut. */
		p->wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
		p->wait.cond = M890_WAIT_GE;
		p->wait.addr = va_in(r, &a, 8, 8);
		p->wait.value = rng_pct(r, 5) ? UINT64_MAX : 0;
		return 1;
	case 5:
		p->timestamp.hdr = M890_PKT_HDR(M890_PKT_TIMESTAMP, 0);
		p->timestamp.addr = va_in(r, &a, 8, 8);
		return 1;
	case 6:		/* rows by an index list of whatever the BO holds */
		p->gather.hdr = M890_PKT_HDR(rng_pct(r, 50) ? M890_PKT_GATHER : M890_PKT_SCATTER, 0);
		p->gather.row_bytes = 64 << rng_below(r, 4);
		p->gather.count = rng_below(r, 16);
		p->gather.src = va_in(r, &a, 4096, 64);
		p->gather.dst = va_in(r, &b, 4096, 64);
		p->gather.idx = va_in(r, &b, 64, 4);
		return 0;
	default: {	/* a valid packet with one bit flipped */
		int bit;

		p->copy.hdr = M890_PKT_HDR(M890_PKT_COPY, 0);
		p->copy.src = a.va;
		p->copy.dst = b.va;
		p->copy.size = a.size < b.size ? a.size : b.size;
		bit = rng_below(r, 512);
		p->dw[bit / 32] ^= 1u << (bit % 32);
		return 0;
	}
	}
}

/* ---- the operations ---- */

enum op {
	OP_QUERY, OP_BO_CREATE, OP_GEM_CLOSE, OP_BO_INFO, OP_MMAP, OP_BO_WAIT,
	OP_QUEUE_CREATE, OP_QUEUE_DESTROY, OP_SUBMIT, OP_SYNCOBJ, OP_PRIME,
	OP_FABRIC, OP_FLINK, OP_REOPEN, OP_RANDOM_IOCTL, OP_COUNT
};

static const unsigned int op_weight[OP_COUNT] = {
	[OP_QUERY] = 4, [OP_BO_CREATE] = 12, [OP_GEM_CLOSE] = 7, [OP_BO_INFO] = 3,
	[OP_MMAP] = 7, [OP_BO_WAIT] = 3, [OP_QUEUE_CREATE] = 6, [OP_QUEUE_DESTROY] = 3,
	[OP_SUBMIT] = 25, [OP_SYNCOBJ] = 7, [OP_PRIME] = 5, [OP_FABRIC] = 6,
	[OP_FLINK] = 2, [OP_REOPEN] = 3, [OP_RANDOM_IOCTL] = 3,
};

static enum op pick_op(struct rng *r)
{
	unsigned int total = 0, x, i;

	for (i = 0; i < OP_COUNT; i++)
		total += op_weight[i];
	x = rng_below(r, total);
	for (i = 0; i < OP_COUNT; i++) {
		if (x < op_weight[i])
			return i;
		x -= op_weight[i];
	}
	return OP_QUERY;
}

static void op_query(struct slot *s, struct rng *r)
{
	union {
		struct drm_m890_device_info info;
		struct drm_m890_queue_state st;
		char raw[256];
	} buf;
	struct drm_m890_query q = { .data = (uintptr_t)&buf };
	struct queue qu;
	int ret;

	memset(&buf, 0, sizeof(buf));
	switch (rng_below(r, 5)) {
	case 0:
		q.type = DRM_M890_QUERY_DEVICE_INFO;
		q.size = rng_pct(r, 50) ? sizeof(buf.info) : rng_below(r, sizeof(buf));
		expect_ok("QUERY device info", xioctl(s->fd, DRM_IOCTL_M890_QUERY, &q), ok_handle);
		break;
	case 1:
		q.type = DRM_M890_QUERY_QUEUE_STATE;
		q.size = sizeof(buf.st);
		buf.st.queue_id = pick_queue(s, r, &qu) ? qu.id : (__u32)rng_next(r);
		ret = xioctl(s->fd, DRM_IOCTL_M890_QUERY, &q);
		expect_ok("QUERY queue state", ret, ok_handle);
		break;
	case 2:
		q.type = 1000 + rng_below(r, 1000);
		q.size = sizeof(buf);
		expect_err("QUERY unknown type", xioctl(s->fd, DRM_IOCTL_M890_QUERY, &q), EINVAL);
		break;
	case 3:
		q.type = DRM_M890_QUERY_DEVICE_INFO;
		q.size = sizeof(buf.info);
		q.pad = 1 + rng_below(r, 1000);
		expect_err("QUERY non-zero pad", xioctl(s->fd, DRM_IOCTL_M890_QUERY, &q), EINVAL);
		break;
	default:
		q.type = DRM_M890_QUERY_DEVICE_INFO;
		q.size = sizeof(buf.info);
		q.data = 8;
		expect_err("QUERY unreadable data", xioctl(s->fd, DRM_IOCTL_M890_QUERY, &q), EFAULT);
		break;
	}
}

static void op_bo_create(struct slot *s, struct rng *r)
{
	struct drm_m890_bo_create c = { 0 };
	struct bo b;
	unsigned int k = rng_below(r, 100);
	int ret;

	if (k < 3) {
		c.size = 0;
		c.flags = DRM_M890_BO_HOST;
		expect_err("BO_CREATE size 0", xioctl(s->fd, DRM_IOCTL_M890_BO_CREATE, &c), EINVAL);
		return;
	}
	if (k < 6) {
		c.size = 4096;
		c.flags = rng_pct(r, 50) ? 0 : DRM_M890_BO_FLAGS | (1u << rng_below(r, 30));
		expect_err("BO_CREATE bad flags", xioctl(s->fd, DRM_IOCTL_M890_BO_CREATE, &c), EINVAL);
		return;
	}
	if (k < 9) {
		static const __u64 huge[] = { UINT64_MAX, UINT64_MAX - 4095, 1ull << 62, 1ull << 48 };

		c.size = huge[rng_below(r, 4)];
		c.flags = rng_pct(r, 50) ? DRM_M890_BO_HBM : DRM_M890_BO_HOST;
		ret = xioctl(s->fd, DRM_IOCTL_M890_BO_CREATE, &c);
		if (!ret) {
			finding("BO_CREATE of %#llx bytes succeeded", (unsigned long long)c.size);
			gem_close(s->fd, c.handle);
		}
		return;
	}
	c.flags = rng_pct(r, 60) ? DRM_M890_BO_HBM : DRM_M890_BO_HOST;
	c.size = rng_pct(r, 70) ? 4096 * (1 + rng_below(r, 32)) : (1 + rng_below(r, 2 << 20));
	pthread_mutex_lock(&s->mu);
	if ((c.flags == DRM_M890_BO_HBM && s->hbm_bytes + c.size > SLOT_HBM_CAP) ||
	    (c.flags == DRM_M890_BO_HOST && s->host_bytes + c.size > SLOT_HOST_CAP)) {
		pthread_mutex_unlock(&s->mu);
		return;
	}
	pthread_mutex_unlock(&s->mu);
	ret = xioctl(s->fd, DRM_IOCTL_M890_BO_CREATE, &c);
	expect_ok("BO_CREATE", ret, ok_create);
	if (ret)
		return;
	b = (struct bo){ .handle = c.handle, .flags = c.flags, .size = c.size, .va = c.va,
			 .mmap_offset = c.mmap_offset };
	if (!add_bo(s, &b))
		gem_close(s->fd, c.handle);
}

static void op_gem_close(struct slot *s, struct rng *r)
{
	struct drm_gem_close c = { 0 };
	struct bo b;

	if (rng_pct(r, 10)) {
		c.handle = rng_pct(r, 50) ? 0 : UINT32_MAX;
		if (!xioctl(s->fd, DRM_IOCTL_GEM_CLOSE, &c))
			finding("GEM_CLOSE of handle %#x succeeded", c.handle);
		return;
	}
	if (take_bo(s, r, &b))
		gem_close(s->fd, b.handle);
}

static void op_bo_info(struct slot *s, struct rng *r)
{
	struct drm_m890_bo_info i = { 0 };
	struct bo b;

	if (rng_pct(r, 15) || !pick_bo(s, r, &b, 0)) {
		i.handle = rng_pct(r, 50) ? 0 : UINT32_MAX;
		expect_err("BO_INFO unknown handle", xioctl(s->fd, DRM_IOCTL_M890_BO_INFO, &i), ENOENT);
		return;
	}
	i.handle = b.handle;
	if (rng_pct(r, 10)) {
		i.pad = 1;
		expect_err_stale("BO_INFO non-zero pad", xioctl(s->fd, DRM_IOCTL_M890_BO_INFO, &i), EINVAL);
		return;
	}
	expect_ok("BO_INFO", xioctl(s->fd, DRM_IOCTL_M890_BO_INFO, &i), ok_handle);
}

static void op_mmap(struct slot *s, struct rng *r)
{
	size_t pages, off, len;
	struct bo b;
	void *p;

	if (!pick_bo(s, r, &b, DRM_M890_BO_HBM | DRM_M890_BO_HOST) || !b.mmap_offset)
		return;
	pages = (b.size + 4095) / 4096;
	if (rng_pct(r, 10)) {	/* past the end */
		bool alive = false;

		/*
		 * Under the list's lock, so that no thread closes the handle
		 * meanwhile: a freed BO's offset may go to a bigger one.
		 */
		pthread_mutex_lock(&s->mu);
		for (int i = 0; i < s->nbos; i++)
			if (s->bos[i].handle == b.handle && s->bos[i].mmap_offset == b.mmap_offset)
				alive = true;
		p = MAP_FAILED;
		if (alive)
			p = mmap(NULL, (pages + 1) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
				 b.mmap_offset);
		pthread_mutex_unlock(&s->mu);
		if (p != MAP_FAILED) {
			struct drm_m890_bo_info i = { .handle = b.handle };

			/* (and the handle still names that BO: see add_bo()) */
			if (!xioctl(s->fd, DRM_IOCTL_M890_BO_INFO, &i) &&
			    i.mmap_offset == b.mmap_offset && i.size == b.size)
				finding("mmap of %zu pages of a %zu-page BO succeeded", pages + 1,
					pages);
			munmap(p, (pages + 1) * 4096);
		}
		return;
	}
	off = rng_below(r, pages);
	len = 1 + rng_below(r, pages - off);
	if (!off && rng_pct(r, 50))
		len = pages;
	p = mmap(NULL, len * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
		 b.mmap_offset + off * 4096);
	if (p == MAP_FAILED) {
		/* The handle may have been closed by another thread meanwhile. */
		if (errno != EACCES && errno != EINVAL && errno != ENODEV)
			finding("mmap of a BO: %s", strerror(errno));
		return;
	}
	touch("BO mapping", p, len * 4096, (uint32_t)rng_next(r));
	if (rng_pct(r, 30))
		usleep(rng_below(r, 2000));
	munmap(p, len * 4096);
}

static void op_bo_wait(struct slot *s, struct rng *r)
{
	struct drm_m890_bo_wait w = { 0 };
	struct timespec ts;
	struct bo b;

	if (!pick_bo(s, r, &b, 0))
		return;
	w.handle = b.handle;
	if (rng_pct(r, 10)) {
		w.flags = 1u << rng_below(r, 32);
		expect_err_stale("BO_WAIT bad flags", xioctl(s->fd, DRM_IOCTL_M890_BO_WAIT, &w), EINVAL);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	w.timeout_ns = (__s64)ts.tv_sec * 1000000000ll + ts.tv_nsec +
		       (rng_pct(r, 50) ? 0 : (__s64)rng_below(r, 20000000));
	expect_ok("BO_WAIT", xioctl(s->fd, DRM_IOCTL_M890_BO_WAIT, &w), ok_wait);
}

static void queue_drop(struct slot *s, const struct queue *q, struct rng *r)
{
	struct drm_m890_queue_destroy d = { .queue_id = q->id };

	expect_ok("QUEUE_DESTROY", xioctl(s->fd, DRM_IOCTL_M890_QUEUE_DESTROY, &d), ok_handle);
	if (rng_pct(r, 80))
		expect_ok("SYNCOBJ_DESTROY", drmSyncobjDestroy(s->fd, q->syncobj) ? -errno : 0,
			  (const int[]){ EINVAL, ENOENT, 0 });
}

static void op_queue_create(struct slot *s, struct rng *r)
{
	struct drm_m890_queue_create c = { 0 };
	bool kept = false;
	int ret;

	if (rng_pct(r, 10)) {
		if (rng_pct(r, 50))
			c.flags = 1u << rng_below(r, 32);
		else
			c.pad = 1 + rng_below(r, 100);
		expect_err("QUEUE_CREATE bad flags or pad",
			   xioctl(s->fd, DRM_IOCTL_M890_QUEUE_CREATE, &c), EINVAL);
		return;
	}
	ret = xioctl(s->fd, DRM_IOCTL_M890_QUEUE_CREATE, &c);
	expect_ok("QUEUE_CREATE", ret, ok_create);
	if (ret)
		return;
	pthread_mutex_lock(&s->mu);
	if (s->nqueues < SLOT_QUEUES) {
		s->queues[s->nqueues++] = (struct queue){ .id = c.queue_id, .syncobj = c.syncobj };
		kept = true;
	}
	pthread_mutex_unlock(&s->mu);
	if (!kept) {
		struct queue q = { .id = c.queue_id, .syncobj = c.syncobj };

		queue_drop(s, &q, r);
	}
}

/* Take a queue out of the list, by id or at random (id UINT32_MAX). */
static bool take_queue(struct slot *s, struct rng *r, __u32 id, struct queue *out)
{
	bool found = false;
	int i;

	pthread_mutex_lock(&s->mu);
	for (i = 0; i < s->nqueues; i++)
		if (s->queues[i].id == id)
			break;
	if (id == UINT32_MAX && s->nqueues)
		i = rng_below(r, s->nqueues);
	if (i < s->nqueues) {
		*out = s->queues[i];
		s->queues[i] = s->queues[--s->nqueues];
		found = true;
	}
	pthread_mutex_unlock(&s->mu);
	return found;
}

static void op_queue_destroy(struct slot *s, struct rng *r)
{
	struct drm_m890_queue_destroy d = { 0 };
	struct queue q;

	if (rng_pct(r, 15)) {
		d.queue_id = rng_pct(r, 50) ? UINT32_MAX : 0x10000 + (__u32)rng_below(r, 1000);
		if (rng_pct(r, 30)) {
			d.pad = 1;
			expect_err("QUEUE_DESTROY non-zero pad",
				   xioctl(s->fd, DRM_IOCTL_M890_QUEUE_DESTROY, &d), EINVAL);
		} else {
			expect_err("QUEUE_DESTROY unknown queue",
				   xioctl(s->fd, DRM_IOCTL_M890_QUEUE_DESTROY, &d), ENOENT);
		}
		return;
	}
	if (take_queue(s, r, UINT32_MAX, &q))
		queue_drop(s, &q, r);
}

static void op_submit(struct slot *s, struct rng *r)
{
	union m890_packet pkts[MAX_PKTS];
	struct drm_m890_submit sub = { 0 };
	unsigned int max = cards[s->card].info.max_submit_packets;
	int i, n, valid = 1, v, ret;
	struct queue q;

	if (!pick_queue(s, r, &q))
		return;
	sub.queue_id = q.id;
	n = 1 + rng_below(r, MAX_PKTS);
	for (i = 0; i < n; i++) {
		v = gen_packet(s, r, &pkts[i]);
		if (v < 0)
			valid = -1;
		else if (!v && valid > 0)
			valid = 0;
	}
	sub.packets = (uintptr_t)pkts;
	sub.count = n;
	switch (rng_below(r, 40)) {
	case 0:
		sub.count = 0;
		expect_err_stale("SUBMIT of 0 packets", xioctl(s->fd, DRM_IOCTL_M890_SUBMIT, &sub), EINVAL);
		return;
	case 1:
		if (max && max < UINT32_MAX) {
			sub.count = max + 1;
			expect_err_stale("SUBMIT past max_submit_packets",
				   xioctl(s->fd, DRM_IOCTL_M890_SUBMIT, &sub), EINVAL);
		}
		return;
	case 2:
		sub.flags = 1u << rng_below(r, 32);
		expect_err_stale("SUBMIT bad flags", xioctl(s->fd, DRM_IOCTL_M890_SUBMIT, &sub), EINVAL);
		return;
	case 3:
		sub.packets = 64;
		ret = xioctl(s->fd, DRM_IOCTL_M890_SUBMIT, &sub);
		/* a stopped queue may refuse before it reads the packets */
		if (ret != -EFAULT && ret != -EIO && ret != -ENOENT)
			finding("SUBMIT of unreadable packets: %d, expected -EFAULT", ret);
		return;
	case 4:
		sub.queue_id = 0x10000 + (__u32)rng_below(r, 1000);
		expect_err("SUBMIT to an unknown queue", xioctl(s->fd, DRM_IOCTL_M890_SUBMIT, &sub),
			   ENOENT);
		return;
	default:
		break;
	}
	ret = xioctl(s->fd, DRM_IOCTL_M890_SUBMIT, &sub);
	if (valid < 0) {
		/* an unknown or stopped queue may answer before the packets are read */
		if (ret != -EINVAL && ret != -EIO && ret != -ENOENT)
			finding("SUBMIT of a FENCE or reserved header bits: %d, expected -EINVAL", ret);
		return;
	}
	if (valid > 0)
		expect_ok("SUBMIT", ret, ok_submit);
	if (!ret)
		note_seqno(s, q.id, sub.seqno);
	/* A stopped queue (fault, reset, timeout) is replaced now and then. */
	if (ret == -EIO && rng_pct(r, 50) && take_queue(s, r, q.id, &q))
		queue_drop(s, &q, r);
}

static void op_syncobj(struct slot *s, struct rng *r)
{
	struct sync_file_info info;
	struct queue q;
	uint64_t point, deadline;
	struct timespec ts;
	__u32 tmp;
	int ret, sfd;

	if (!pick_queue(s, r, &q))
		return;
	point = 1 + rng_below(r, q.last_seqno + 2);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	deadline = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec + rng_below(r, 20000000);
	switch (rng_below(r, 3)) {
	case 0:
		ret = drmSyncobjTimelineWait(s->fd, &q.syncobj, &point, 1, deadline,
					     rng_pct(r, 50) ? DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT : 0,
					     NULL) ? -errno : 0;
		expect_ok("SYNCOBJ_TIMELINE_WAIT", ret, ok_sync);
		break;
	case 1:
		ret = drmSyncobjQuery(s->fd, &q.syncobj, &point, 1) ? -errno : 0;
		expect_ok("SYNCOBJ_QUERY", ret, ok_sync);
		break;
	default:	/* the point as a sync_file, polled and inspected */
		if (drmSyncobjCreate(s->fd, 0, &tmp))
			return;
		sfd = -1;
		if (!drmSyncobjTransfer(s->fd, tmp, 0, q.syncobj, point, 0) &&
		    !drmSyncobjExportSyncFile(s->fd, tmp, &sfd)) {
			struct pollfd pfd = { .fd = sfd, .events = POLLIN };

			poll(&pfd, 1, rng_below(r, 10));
			memset(&info, 0, sizeof(info));
			xioctl(sfd, SYNC_IOC_FILE_INFO, &info);
			close(sfd);
		}
		drmSyncobjDestroy(s->fd, tmp);
		break;
	}
}

/* Read-lock another slot without waiting (no lock order between slots). */
static struct slot *other_slot(struct rng *r, struct slot *self)
{
	struct slot *o = &slots[rng_below(r, SLOTS)];

	if (o == self)
		return o;
	if (pthread_rwlock_tryrdlock(&o->lock))
		return NULL;
	return o;
}

static void put_other(struct slot *o, struct slot *self)
{
	if (o && o != self)
		pthread_rwlock_unlock(&o->lock);
}

/*
 * Import dma-buf @dfd of BO @from into slot @o and keep the new handle.
 * A host BO of another card cannot be imported (-EOPNOTSUPP).
 */
static void import_into(struct slot *o, int dfd, const struct bo *from, int from_card)
{
	struct drm_m890_bo_info i = { 0 };
	struct bo b;
	__u32 h;
	int ret;

	ret = drmPrimeFDToHandle(o->fd, dfd, &h) ? -errno : 0;
	if ((from->flags & DRM_M890_BO_HOST) && o->card != from_card) {
		if (!ret)
			gem_close(o->fd, h);
		expect_err("PRIME_FD_TO_HANDLE of another card's host BO", ret, EOPNOTSUPP);
		return;
	}
	expect_ok("PRIME_FD_TO_HANDLE", ret, ok_import);
	if (ret)
		return;
	i.handle = h;
	if (xioctl(o->fd, DRM_IOCTL_M890_BO_INFO, &i)) {
		gem_close(o->fd, h);
		return;
	}
	b = (struct bo){ .handle = h, .flags = i.flags, .size = i.size, .va = i.va,
			 .mmap_offset = i.mmap_offset };
	if (!add_bo(o, &b))
		gem_close(o->fd, h);
}

static void op_prime(struct slot *s, struct rng *r)
{
	struct slot *o;
	struct bo b;
	int dfd, ret;
	void *p;

	if (!pick_bo(s, r, &b, DRM_M890_BO_HBM | DRM_M890_BO_HOST))
		return;
	ret = drmPrimeHandleToFD(s->fd, b.handle, DRM_CLOEXEC | DRM_RDWR, &dfd) ? -errno : 0;
	expect_ok("PRIME_HANDLE_TO_FD", ret, ok_handle);
	if (ret)
		return;
	if (rng_pct(r, 30)) {
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
		if (p != MAP_FAILED) {
			touch("dma-buf mapping", p, 4096, (uint32_t)rng_next(r));
			munmap(p, 4096);
		}
	}
	o = other_slot(r, s);
	if (o)
		import_into(o, dfd, &b, s->card);
	put_other(o, s);
	close(dfd);
}

static void op_fabric(struct slot *s, struct rng *r)
{
	struct drm_m890_fabric_export e = { 0 };
	struct drm_m890_fabric_import im = { 0 };
	struct drm_m890_fabric_revoke rv = { 0 };
	struct export ex;
	struct slot *o;
	struct bo b;
	int ret, i;

	switch (rng_below(r, 4)) {
	case 0:		/* export */
		if (!pick_bo(s, r, &b, DRM_M890_BO_HBM))
			return;
		e.handle = b.handle;
		if (rng_pct(r, 10)) {
			e.flags = DRM_M890_EXPORT_KEY;
			e.key = 0;
			expect_err_stale("FABRIC_EXPORT zero key",
				   xioctl(s->fd, DRM_IOCTL_M890_FABRIC_EXPORT, &e), EINVAL);
			return;
		}
		if (rng_pct(r, 10)) {
			e.flags = 1u << (1 + rng_below(r, 31));
			expect_err_stale("FABRIC_EXPORT bad flags",
				   xioctl(s->fd, DRM_IOCTL_M890_FABRIC_EXPORT, &e), EINVAL);
			return;
		}
		if (rng_pct(r, 30)) {
			e.flags = DRM_M890_EXPORT_KEY;
			e.key = rng_next(r) | 1;
		}
		ret = xioctl(s->fd, DRM_IOCTL_M890_FABRIC_EXPORT, &e);
		expect_ok("FABRIC_EXPORT", ret, ok_export);
		if (ret)
			return;
		pthread_mutex_lock(&exports_mu);
		i = nexports < MAX_EXPORTS ? nexports++ : (int)rng_below(r, MAX_EXPORTS);
		exports[i] = (struct export){ .fabric_id = e.fabric_id, .key = e.key };
		pthread_mutex_unlock(&exports_mu);
		return;
	case 1:		/* import an export of this process */
		pthread_mutex_lock(&exports_mu);
		if (!nexports) {
			pthread_mutex_unlock(&exports_mu);
			return;
		}
		ex = exports[rng_below(r, nexports)];
		pthread_mutex_unlock(&exports_mu);
		o = other_slot(r, s);
		if (!o)
			return;
		im.fabric_id = ex.fabric_id;
		im.key = ex.key;
		ret = xioctl(o->fd, DRM_IOCTL_M890_FABRIC_IMPORT, &im);
		expect_ok("FABRIC_IMPORT", ret, ok_import);
		if (!ret) {
			b = (struct bo){ .handle = im.handle, .flags = DRM_M890_BO_PEER,
					 .size = im.size, .va = im.va };
			if (!add_bo(o, &b))
				gem_close(o->fd, im.handle);
		}
		put_other(o, s);
		return;
	case 2:		/* import with a key nobody exported */
		im.fabric_id = cards[s->card].info.fabric_id;
		im.key = rng_next(r) | 1;
		ret = xioctl(s->fd, DRM_IOCTL_M890_FABRIC_IMPORT, &im);
		if (!ret) {
			finding("FABRIC_IMPORT with a random key succeeded");
			gem_close(s->fd, im.handle);
		} else if (ret != -ENOENT && ret != -ENODEV) {
			finding("FABRIC_IMPORT with a random key: %d, expected -ENOENT", ret);
		}
		return;
	default:	/* revoke */
		if (!pick_bo(s, r, &b, DRM_M890_BO_HBM))
			return;
		rv.handle = b.handle;
		if (rng_pct(r, 10)) {
			rv.flags = 1u << rng_below(r, 32);
			expect_err_stale("FABRIC_REVOKE bad flags",
				   xioctl(s->fd, DRM_IOCTL_M890_FABRIC_REVOKE, &rv), EINVAL);
			return;
		}
		expect_ok("FABRIC_REVOKE", xioctl(s->fd, DRM_IOCTL_M890_FABRIC_REVOKE, &rv),
			  ok_handle);
		return;
	}
}

static void op_flink(struct slot *s, struct rng *r)
{
	struct drm_gem_flink f = { 0 };
	struct drm_gem_open go = { 0 };
	struct slot *o;
	struct bo b;
	int ret;

	if (!pick_bo(s, r, &b, DRM_M890_BO_HBM | DRM_M890_BO_HOST))
		return;
	f.handle = b.handle;
	ret = xioctl(s->fd, DRM_IOCTL_GEM_FLINK, &f);
	expect_ok("GEM_FLINK", ret, (const int[]){ ENOENT, EPERM, ENODEV, EOPNOTSUPP, 0 });
	if (ret)
		return;
	o = other_slot(r, s);
	if (!o)
		return;
	go.name = f.name;
	/* The name is of this card; in another card's file it is unknown. */
	ret = xioctl(o->fd, DRM_IOCTL_GEM_OPEN, &go);
	if (!ret) {
		/* in this slot too: a second handle of one BO in one file */
		if (o->card == s->card) {
			struct bo nb = b;

			nb.handle = go.handle;
			if (!add_bo(o, &nb))
				gem_close(o->fd, go.handle);
		} else {
			gem_close(o->fd, go.handle);
		}
	} else if (ret != -ENOENT && ret != -EPERM && ret != -ENODEV) {
		finding("GEM_OPEN: %d", ret);
	}
	put_other(o, s);
}

/* Close the slot's file (its queues and BOs go with it) and open a card. */
static void slot_reopen(struct slot *s, struct rng *r)
{
	pthread_rwlock_wrlock(&s->lock);
	if (s->fd >= 0)
		close(s->fd);
	s->nbos = 0;
	s->nqueues = 0;
	s->hbm_bytes = 0;
	s->host_bytes = 0;
	s->card = rng_below(r, ncards);
	s->fd = open_card(s->card);
	if (s->fd < 0)
		finding("open of accel%d: %s", s->card, strerror(errno));
	pthread_rwlock_unlock(&s->lock);
}

static void op_random_ioctl(struct slot *s, struct rng *r)
{
	static const unsigned long real[] = {
		DRM_IOCTL_M890_QUERY, DRM_IOCTL_M890_BO_CREATE, DRM_IOCTL_M890_BO_INFO,
		DRM_IOCTL_M890_QUEUE_CREATE, DRM_IOCTL_M890_QUEUE_DESTROY, DRM_IOCTL_M890_SUBMIT,
		DRM_IOCTL_M890_BO_WAIT, DRM_IOCTL_M890_FABRIC_EXPORT,
		DRM_IOCTL_M890_FABRIC_REVOKE, DRM_IOCTL_M890_FABRIC_IMPORT,
	};
	uint64_t buf[64];
	unsigned long cmd;
	int i, ret;

	for (i = 0; i < 64; i++)
		buf[i] = rng_pct(r, 50) ? rng_next(r) : rng_below(r, 64);
	if (rng_pct(r, 60)) {
		/* a real ioctl, random contents: keep sizes from blowing up */
		cmd = real[rng_below(r, sizeof(real) / sizeof(real[0]))];
		if (cmd == DRM_IOCTL_M890_BO_CREATE) {
			buf[0] &= 0xfffff;
		} else if (cmd == DRM_IOCTL_M890_BO_WAIT) {
			buf[1] = 0;	/* timeout: the past */
		} else if (cmd == DRM_IOCTL_M890_SUBMIT) {
			/* queue_id, count 0..3, packets: the rest of buf */
			buf[0] &= 0x3ffffffffull;
			buf[1] = (uintptr_t)&buf[8];
		}
	} else {
		cmd = DRM_IOC(rng_below(r, 4), DRM_IOCTL_BASE, DRM_COMMAND_BASE + rng_below(r, 0x20),
			      rng_below(r, 257));
	}
	ret = ioctl(s->fd, cmd, buf) ? -errno : 0;
	if (!ret) {
		/* whatever it made belongs to the file and goes with it */
		note("random ioctl %#lx succeeded", cmd);
	}
}

static void do_op(struct slot *s, struct rng *r, enum op op)
{
	switch (op) {
	case OP_QUERY: op_query(s, r); break;
	case OP_BO_CREATE: op_bo_create(s, r); break;
	case OP_GEM_CLOSE: op_gem_close(s, r); break;
	case OP_BO_INFO: op_bo_info(s, r); break;
	case OP_MMAP: op_mmap(s, r); break;
	case OP_BO_WAIT: op_bo_wait(s, r); break;
	case OP_QUEUE_CREATE: op_queue_create(s, r); break;
	case OP_QUEUE_DESTROY: op_queue_destroy(s, r); break;
	case OP_SUBMIT: op_submit(s, r); break;
	case OP_SYNCOBJ: op_syncobj(s, r); break;
	case OP_PRIME: op_prime(s, r); break;
	case OP_FABRIC: op_fabric(s, r); break;
	case OP_FLINK: op_flink(s, r); break;
	case OP_RANDOM_IOCTL: op_random_ioctl(s, r); break;
	case OP_REOPEN: case OP_COUNT: break;
	}
}

struct thread_arg {
	int index;
	struct rng rng;
};

static void *worker_thread(void *p)
{
	struct thread_arg *a = p;
	struct slot *s;
	enum op op;
	int i;

	for (i = 0; i < opt.ops; i++) {
		s = &slots[rng_below(&a->rng, SLOTS)];
		op = pick_op(&a->rng);
		if (op == OP_REOPEN) {
			slot_reopen(s, &a->rng);
			continue;
		}
		pthread_rwlock_rdlock(&s->lock);
		if (s->fd >= 0)
			do_op(s, &a->rng, op);
		pthread_rwlock_unlock(&s->lock);
	}
	return NULL;
}

/* A worker process: SLOTS files over the cards, opt.threads threads. */
static int worker_main(int index, int gen)
{
	pthread_t th[MAX_THREADS];
	struct thread_arg args[MAX_THREADS];
	struct sigaction sa = { .sa_sigaction = touch_fault, .sa_flags = SA_SIGINFO };
	struct rng r = rng_derive(opt.seed, index, gen, 0xffff);
	int i;

	worker_index = index;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	for (i = 0; i < SLOTS; i++) {
		pthread_rwlock_init(&slots[i].lock, NULL);
		pthread_mutex_init(&slots[i].mu, NULL);
		slots[i].fd = -1;
		slot_reopen(&slots[i], &r);
	}
	for (i = 0; i < opt.threads; i++) {
		args[i].index = i;
		args[i].rng = rng_derive(opt.seed, index, gen, i);
		if (pthread_create(&th[i], NULL, worker_thread, &args[i])) {
			finding("pthread_create failed");
			opt.threads = i;
			break;
		}
	}
	for (i = 0; i < opt.threads; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < SLOTS; i++)
		if (slots[i].fd >= 0)
			close(slots[i].fd);
	return 0;
}

/* ---- the supervisor ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static pid_t spawn(int index, int gen)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(worker_main(index, gen));
	return pid;
}

/* Reset card @c: debugfs force_reset, or a PCIe FLR through sysfs. */
static int reset_card(int c, bool flr)
{
	char path[160];

	if (!flr) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/accel/%s/force_reset", cards[c].bdf);
		return write_file(path, "1");
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/reset_method", cards[c].bdf);
	if (write_file(path, "flr"))
		return -ENOTSUP;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/reset", cards[c].bdf);
	return write_file(path, "1");
}

/* A FILL of a host BO on card @c, read back through its mapping. */
static bool card_runs_job(int c)
{
	struct drm_m890_bo_create bo = { .size = 65536, .flags = DRM_M890_BO_HOST };
	struct drm_m890_queue_create q = { 0 };
	struct drm_m890_submit sub = { 0 };
	union m890_packet p;
	uint64_t point;
	uint32_t *m;
	bool ok = false;
	int fd = open_card(c), i;

	if (fd < 0)
		return false;
	if (xioctl(fd, DRM_IOCTL_M890_BO_CREATE, &bo) || xioctl(fd, DRM_IOCTL_M890_QUEUE_CREATE, &q))
		goto out;
	memset(&p, 0, sizeof(p));
	p.fill.hdr = M890_PKT_HDR(M890_PKT_FILL, 0);
	p.fill.pattern = 0x5a17c0de;
	p.fill.dst = bo.va;
	p.fill.size = bo.size;
	sub.queue_id = q.queue_id;
	sub.count = 1;
	sub.packets = (uintptr_t)&p;
	if (xioctl(fd, DRM_IOCTL_M890_SUBMIT, &sub))
		goto out;
	point = sub.seqno;
	if (drmSyncobjTimelineWait(fd, &q.syncobj, &point, 1, (int64_t)((now_s() + 30) * 1e9),
				   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL))
		goto out;
	m = mmap(NULL, bo.size, PROT_READ, MAP_SHARED, fd, bo.mmap_offset);
	if (m == MAP_FAILED)
		goto out;
	ok = true;
	for (i = 0; i < (int)(bo.size / 4); i++)
		if (m[i] != 0x5a17c0de)
			ok = false;
	munmap(m, bo.size);
out:
	close(fd);
	return ok;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: m890_stress [--seed N] [--procs N] [--threads N] [--ops N] [--cards N]\n"
		   "                   [--kills N] [--resets N] [--flr-pct P] [--timeout S] [--verbose]\n");
}

static long parse_num(const char *name, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < lo || v > hi) {
		fprintf(stderr, "m890_stress: --%s must be a number in %ld..%ld, not '%s'\n",
			name, lo, hi, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "ops", required_argument, NULL, 'o' },
		{ "cards", required_argument, NULL, 'c' },
		{ "kills", required_argument, NULL, 'k' },
		{ "resets", required_argument, NULL, 'r' },
		{ "flr-pct", required_argument, NULL, 'f' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	pid_t pids[MAX_PROCS];
	int gens[MAX_PROCS], done = 0, kills = 0, resets = 0, failed_workers = 0;
	long long hbm0[MAX_CARDS];
	char saved_timeout[32] = "", *end;
	const char *tpath = "/sys/module/m890/parameters/job_timeout_ms";
	bool seeded = false, hbm_ok = true, jobs_ok = true;
	struct rng sup;
	double t0, next_event;
	int c, i, status, fd;

	while ((c = getopt_long(argc, argv, "s:p:t:o:c:k:r:f:T:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			opt.seed = strtoull(optarg, &end, 0);
			if (errno || *end) {
				fprintf(stderr, "m890_stress: bad --seed '%s'\n", optarg);
				return 2;
			}
			seeded = true;
			break;
		case 'p': opt.procs = parse_num("procs", optarg, 1, MAX_PROCS); break;
		case 't': opt.threads = parse_num("threads", optarg, 1, MAX_THREADS); break;
		case 'o': opt.ops = parse_num("ops", optarg, 0, 100000000); break;
		case 'c': opt.cards = parse_num("cards", optarg, 1, MAX_CARDS); break;
		case 'k': opt.kills = parse_num("kills", optarg, 0, 100000); break;
		case 'r': opt.resets = parse_num("resets", optarg, 0, 100000); break;
		case 'f': opt.flr_pct = parse_num("flr-pct", optarg, 0, 100); break;
		case 'T': opt.timeout_s = parse_num("timeout", optarg, 1, 86400); break;
		case 'v': opt.verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (!seeded) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		opt.seed = ((uint64_t)ts.tv_sec << 20) ^ ts.tv_nsec ^ ((uint64_t)getpid() << 40);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	findings = mmap(NULL, sizeof(*findings), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (findings == MAP_FAILED) {
		printf("not ok 1 - m890_stress: mmap: %s\n1..1\n", strerror(errno));
		return 1;
	}

	/* The accel nodes in minor order (not always 0..n-1: rebinding renumbers). */
	for (i = 0, ncards = 0; i < 256 && ncards < MAX_CARDS; i++) {
		fd = open_minor(i);
		if (fd < 0)
			continue;
		cards[ncards].minor = i;
		if (!query_info(fd, &cards[ncards].info) &&
		    !card_bdf(i, cards[ncards].bdf, sizeof(cards[0].bdf)))
			ncards++;
		close(fd);
	}
	if (!ncards || (opt.cards && ncards != opt.cards)) {
		printf("not ok 1 - m890_stress: %d cards found%s\n1..1\n", ncards,
		       opt.cards ? ", not --cards" : "");
		return 1;
	}
	printf("# m890_stress: seed %#" PRIx64 " (replay: m890_stress --seed %#" PRIx64
	       " --procs %d --threads %d --ops %d --cards %d --kills %d --resets %d --flr-pct %d)\n",
	       opt.seed, opt.seed, opt.procs, opt.threads, opt.ops, ncards, opt.kills, opt.resets,
	       opt.flr_pct);
	for (i = 0; i < ncards; i++)
		hbm0[i] = hbm_used(i);

	/* Hung WAITs are cut by the job timeout: make it short for the run. */
	if (!read_file(tpath, saved_timeout, sizeof(saved_timeout)))
		write_file(tpath, "300");

	sup = rng_derive(opt.seed, 0xffffffff, 0, 0);
	t0 = now_s();
	for (i = 0; i < opt.procs; i++) {
		gens[i] = 0;
		pids[i] = spawn(i, 0);
	}
	next_event = now_s() + 0.05 + rng_below(&sup, 400) / 1000.0;
	while (done < opt.procs) {
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid > 0) {
			for (i = 0; i < opt.procs; i++)
				if (pids[i] == pid)
					break;
			if (i < opt.procs) {
				pids[i] = 0;
				done++;
				if (!WIFEXITED(status) || WEXITSTATUS(status)) {
					failed_workers++;
					printf("# worker %d (generation %d) %s %d\n", i, gens[i],
					       WIFEXITED(status) ? "exited with status" : "died of signal",
					       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
				}
			}
			continue;
		}
		if (now_s() - t0 > opt.timeout_s) {
			printf("# timeout after %d s: killing the workers\n", opt.timeout_s);
			for (i = 0; i < opt.procs; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGKILL);
			while (wait(NULL) > 0)
				;
			printf("not ok 1 - stress run finished within %d s (seed %#" PRIx64 ")\n1..1\n",
			       opt.timeout_s, opt.seed);
			return 1;
		}
		if (now_s() < next_event) {
			usleep(10000);
			continue;
		}
		next_event = now_s() + 0.05 + rng_below(&sup, 400) / 1000.0;
		if (kills < opt.kills && rng_pct(&sup, 50)) {
			i = rng_below(&sup, opt.procs);
			if (pids[i] > 0) {
				kill(pids[i], SIGKILL);
				waitpid(pids[i], &status, 0);
				kills++;
				gens[i]++;
				note("killed worker %d, starting generation %d", i, gens[i]);
				pids[i] = spawn(i, gens[i]);
			}
		} else if (resets < opt.resets && rng_pct(&sup, 50)) {
			int card = rng_below(&sup, ncards);
			bool flr = rng_pct(&sup, opt.flr_pct);
			int ret = reset_card(card, flr);

			resets++;
			if (ret && ret != -ENOTSUP) {
				printf("# FINDING: %s of card %d failed: %s\n",
				       flr ? "FLR" : "force_reset", card, strerror(-ret));
				failed_workers++;
			}
			note("%s of card %d: %d", flr ? "FLR" : "force_reset", card, ret);
		}
	}

	if (saved_timeout[0])
		write_file(tpath, saved_timeout);
	failed_workers += *findings;
	printf("%s 1 - %d workers x %d threads x %d ops with %d kills and %d resets: %d findings "
	       "(seed %#" PRIx64 ", %.1f s)\n", failed_workers ? "not ok" : "ok", opt.procs,
	       opt.threads, opt.ops, kills, resets, *findings, opt.seed, now_s() - t0);

	/* Every file is closed: the HBM comes back once the last jobs end. */
	for (i = 0; i < ncards; i++) {
		long long used = hbm_used(i);
		double until = now_s() + 30;

		while (used != hbm0[i] && now_s() < until) {
			usleep(100000);
			used = hbm_used(i);
		}
		if (used != hbm0[i]) {
			printf("# card %d: HBM used %lld after the run, %lld before\n", i, used,
			       hbm0[i]);
			hbm_ok = false;
		}
	}
	printf("%s 2 - HBM of every card back to its level before the run\n",
	       hbm_ok ? "ok" : "not ok");
	for (i = 0; i < ncards; i++) {
		if (!card_runs_job(i)) {
			printf("# card %d does not run a FILL after the run\n", i);
			jobs_ok = false;
		}
	}
	printf("%s 3 - every card runs a job after the run\n", jobs_ok ? "ok" : "not ok");
	printf("1..3\n");
	return failed_workers || !hbm_ok || !jobs_ok;
}
