// SPDX-License-Identifier: MIT
/*
 * DOC: fabric behaviour seen by libm890 (guest, two cards or more)
 *
 * The acceptance checks of the ICN fabric (hardware spec §8, §10), with
 * the fabric changed through icnctl as an operator would:
 *
 * - partitions: with card a in partition 1 and card b in partition 2, a
 *   window cannot be opened either way (M890_ERROR_PERMISSION), and a
 *   window opened before the move can neither write nor read b's memory:
 *   the work fails, b's memory is unchanged, the switch counts the
 *   refusals on a's port and the driver announces a fabric fault on the
 *   "errors" netlink group.  Moving b into partition 1 lets new windows
 *   work; moving it back refuses them again.
 * - link down during a transfer: a peer copy is queued on the card behind
 *   a WAIT, b's link goes down, the WAIT is released: the copy fails, b's
 *   link-down count grows, and after the link comes back new work
 *   succeeds.
 * - counters and timing model: a 64 MiB copy from a's HBM to b's HBM is
 *   counted as 64 MiB TX on a's port and RX on b's, and its modelled time
 *   (the difference of two TIMESTAMP events) is within 5% of what §10
 *   (model 1.1) predicts: 50 ns of fetch + bytes / 800 GB/s (the port);
 *   a's HBM read (bytes / 3.2 TB/s) streams under the link time and the
 *   write is posted, so no switch latency shows on a's clock.
 *
 * The switch is reset (icnctl switch reset) before and after.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#define N		(1u << 20)
#define BIG		(64ull << 20)
#define MON		"/tmp/m890-lib-test-fabric.mon"

/* Run a shell command built from @fmt; returns its exit status. */
static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	return r == -1 ? -1 : WEXITSTATUS(r);
}

/* A port's counters, read with "icnctl -s port show PORT". */
struct counters {
	unsigned long long tx, rx, errors, link_down;
};

static int port_counters(uint32_t port, struct counters *c)
{
	char cmd[64], line[512], *p;
	FILE *f;
	int ok = 0;

	memset(c, 0, sizeof(*c));
	snprintf(cmd, sizeof(cmd), "icnctl -s port show %u", port);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f)) {
		p = strstr(line, " tx ");
		ok = p && sscanf(p, " tx %llu rx %llu tx-packets %*u rx-packets %*u errors %llu link-down %llu",
				 &c->tx, &c->rx, &c->errors, &c->link_down) == 4;
	}
	pclose(f);
	return ok ? 0 : -1;
}

/* True once @path holds a complete line. */
static int file_has_line(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int ret;

	if (!f)
		return 0;
	ret = fgets(line, sizeof(line), f) && strchr(line, '\n');
	fclose(f);
	return ret;
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 13 + seed);
}

static int all_equal(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

struct card {
	m890_device_t dev;
	uint32_t fid;
	char node[32];
	m890_buffer_t host, hbm;
	uint8_t *hp;
	uint64_t host_va, hbm_va;
};

static void card_open(struct card *c, int index)
{
	struct m890_device_info info = M890_DEVICE_INFO_INIT;
	void *p;

	TAP_REQUIRE(m890_device_open(index, &c->dev));
	TAP_REQUIRE(m890_device_get_info(c->dev, &info));
	c->fid = info.fabric_id;
	snprintf(c->node, sizeof(c->node), "%s", info.node);
	TAP_REQUIRE(m890_buffer_alloc(c->dev, N, M890_MEM_HOST, &c->host));
	TAP_REQUIRE(m890_buffer_alloc(c->dev, N, M890_MEM_HBM, &c->hbm));
	TAP_REQUIRE(m890_buffer_map(c->host, &p));
	c->hp = p;
	TAP_REQUIRE(m890_buffer_va(c->host, &c->host_va));
	TAP_REQUIRE(m890_buffer_va(c->hbm, &c->hbm_va));
}

/* Write @c's host buffer to its HBM buffer, through the card. */
static void hbm_put(struct card *c)
{
	m890_stream_t s;

	TAP_REQUIRE(m890_stream_create(c->dev, &s));
	TAP_REQUIRE(m890_memcpy_htod(s, c->hbm, 0, c->host, 0, N));
	TAP_REQUIRE(m890_stream_synchronize(s));
	m890_stream_destroy(s);
}

/* Set @c's HBM buffer to @v everywhere, through the card. */
static void hbm_set(struct card *c, uint8_t v)
{
	memset(c->hp, v, N);
	hbm_put(c);
}

/* Read @c's HBM buffer into its host buffer. */
static void hbm_get(struct card *c)
{
	m890_stream_t s;

	TAP_REQUIRE(m890_stream_create(c->dev, &s));
	memset(c->hp, 0xee, N);
	TAP_REQUIRE(m890_memcpy_dtoh(s, c->host, 0, c->hbm, 0, N));
	TAP_REQUIRE(m890_stream_synchronize(s));
	m890_stream_destroy(s);
}

/* Copy a's HBM buffer to b through @w on a fresh stream; the status. */
static m890_status_t peer_write(struct card *a, m890_window_t w)
{
	m890_status_t st;
	m890_stream_t s;

	TAP_REQUIRE(m890_stream_create(a->dev, &s));
	st = m890_memcpy_peer(s, w, 0, a->hbm, 0, N);
	if (st == M890_SUCCESS)
		st = m890_stream_synchronize(s);
	m890_stream_destroy(s);
	return st;
}

/* Import @peer_buf on @dev; a window that should not exist is freed. */
static m890_status_t try_import(m890_device_t dev, m890_buffer_t peer_buf)
{
	m890_window_t w;
	m890_status_t st;

	st = m890_buffer_import_peer(dev, peer_buf, &w);
	if (st == M890_SUCCESS)
		m890_window_free(w);
	return st;
}

static void test_partitions(struct card *a, struct card *b)
{
	struct counters c0, c1;
	char expect[128];
	m890_buffer_t other;
	m890_window_t old, w;
	m890_status_t st;
	m890_stream_t s;
	uint64_t wva;

	/*
	 * The window opened before the move is on a buffer of its own: a
	 * file that holds a window on a dma-buf gets that same window back
	 * from DRM's prime cache when it imports the dma-buf again, without
	 * a new check by the driver.
	 */
	TAP_REQUIRE(m890_buffer_alloc(b->dev, N, M890_MEM_HBM, &other));
	TAP_REQUIRE(m890_buffer_import_peer(a->dev, other, &old));
	TAP_REQUIRE(m890_window_va(old, &wva));
	tap_ok(sh("icnctl partition add 1 ports %u && icnctl partition add 2 ports %u",
		  a->fid, b->fid) == 0, "card a to partition 1, card b to partition 2");

	TAP_STATUS(try_import(a->dev, b->hbm), M890_ERROR_PERMISSION);
	TAP_STATUS(try_import(b->dev, a->hbm), M890_ERROR_PERMISSION);

	/* The window opened before the move: writes and reads both fail. */
	port_counters(a->fid, &c0);
	st = peer_write(a, old);
	tap_ok(st != M890_SUCCESS, "write into partition 2 fails (%s)", m890_status_string(st));
	TAP_REQUIRE(m890_stream_create(a->dev, &s));
	memset(a->hp, 0x5a, N);
	st = m890_memcpy(s, a->host_va, wva, 4096);
	if (st == M890_SUCCESS)
		st = m890_stream_synchronize(s);
	m890_stream_destroy(s);
	tap_ok(st != M890_SUCCESS, "read from partition 2 fails (%s)", m890_status_string(st));
	tap_ok(all_equal(a->hp, 4096, 0x5a), "nothing was read");
	port_counters(a->fid, &c1);
	tap_ok(c1.errors >= c0.errors + 2, "the switch counted the refusals on a's port (%llu -> %llu)",
	       c0.errors, c1.errors);

	/*
	 * The refusal is announced on the "errors" group.  The monitor may
	 * join the group a little after it starts, so fail a write again
	 * until it reports one (each try is another refused access).
	 */
	tap_ok(sh("rm -f " MON "; (icnctl -j monitor errors count 1 >" MON " 2>&1 & p=$!; "
		  "sleep 30; kill $p 2>/dev/null) &") == 0, "monitor of the errors group started");
	for (int i = 0; i < 50 && !file_has_line(MON); i++) {
		peer_write(a, old);
		usleep(200000);
	}
	snprintf(expect, sizeof(expect), "\"error\":\"fabric-fault\",\"card\":\"%s\",\"fabric_id\":%u,",
		 a->node, a->fid);
	tap_ok(sh("grep -q '%s' " MON, expect) == 0,
	       "a fabric-fault error names card %s, fabric id %u", a->node, a->fid);
	sh("sed 's/^/# monitor: /' " MON);

	/* Moving b into partition 1 affects new windows. */
	hbm_set(b, 0x11);
	tap_ok(sh("icnctl port set %u partition 1", b->fid) == 0, "card b moved to partition 1");
	TAP_STATUS(m890_buffer_import_peer(a->dev, b->hbm, &w), M890_SUCCESS);
	fill(a->hp, N, 3);
	hbm_put(a);
	TAP_STATUS(peer_write(a, w), M890_SUCCESS);
	hbm_get(b);
	fill(a->hp, N, 3);
	tap_ok(memcmp(a->hp, b->hp, N) == 0, "a new window in the shared partition moves the data");
	TAP_STATUS(m890_window_free(w), M890_SUCCESS);
	tap_ok(sh("icnctl port set %u partition 2", b->fid) == 0, "card b moved back to partition 2");
	TAP_STATUS(try_import(a->dev, b->hbm), M890_ERROR_PERMISSION);
	hbm_set(b, 0x11);
	tap_ok(peer_write(a, old) != M890_SUCCESS, "the old window still cannot write");
	hbm_get(b);
	tap_ok(all_equal(b->hp, N, 0x11), "card b's memory is unchanged");
	TAP_STATUS(m890_window_free(old), M890_SUCCESS);
	m890_buffer_free(other);
	tap_ok(sh("icnctl switch reset") == 0, "switch reset");
	TAP_STATUS(try_import(a->dev, b->hbm), M890_SUCCESS);
}

static void test_link_down(struct card *a, struct card *b)
{
	volatile uint64_t *sem = (volatile uint64_t *)a->hp;
	struct counters c0, c1;
	m890_window_t w;
	m890_status_t st;
	m890_stream_t s;

	TAP_REQUIRE(m890_buffer_import_peer(a->dev, b->hbm, &w));
	hbm_set(b, 0x22);
	port_counters(b->fid, &c0);
	*sem = 0;
	TAP_REQUIRE(m890_stream_create(a->dev, &s));
	/* Queued on the card: the copy waits for the host to release it. */
	TAP_STATUS(m890_wait(s, a->host_va, 1, M890_SEM_GE), M890_SUCCESS);
	TAP_STATUS(m890_memcpy_peer(s, w, 0, a->hbm, 0, N), M890_SUCCESS);
	TAP_STATUS(m890_stream_flush(s), M890_SUCCESS);
	tap_ok(sh("icnctl port set %u state down", b->fid) == 0, "card b's link taken down");
	*sem = 1;
	st = m890_stream_synchronize(s);
	tap_ok(st != M890_SUCCESS, "the copy over the down link fails (%s)",
	       m890_status_string(st));
	m890_stream_destroy(s);
	port_counters(b->fid, &c1);
	tap_ok(c1.link_down == c0.link_down + 1, "b's link-down count grew (%llu -> %llu)",
	       c0.link_down, c1.link_down);
	hbm_get(b);
	tap_ok(all_equal(b->hp, N, 0x22), "nothing reached card b");

	tap_ok(sh("icnctl port set %u state up", b->fid) == 0, "card b's link up again");
	fill(a->hp, N, 9);
	hbm_put(a);
	TAP_STATUS(peer_write(a, w), M890_SUCCESS);
	hbm_get(b);
	fill(a->hp, N, 9);
	tap_ok(memcmp(a->hp, b->hp, N) == 0, "after the link is back a new copy succeeds");
	m890_window_free(w);
}

static void test_timing(struct card *a, struct card *b)
{
	/* spec §10: fetch + max(HBM read, link); a posted write */
	const double hbm = BIG / 3200.0, link = BIG / 800.0;
	const double predicted = 50.0 + (hbm > link ? hbm : link);
	m890_buffer_t src, dst;
	m890_event_t e0, e1;
	struct counters ca, cb;
	int64_t device_ns = 0;
	m890_window_t w;
	m890_stream_t s;
	double err;

	TAP_REQUIRE(m890_buffer_alloc(a->dev, BIG, M890_MEM_HBM, &src));
	TAP_REQUIRE(m890_buffer_alloc(b->dev, BIG, M890_MEM_HBM, &dst));
	TAP_REQUIRE(m890_buffer_import_peer(a->dev, dst, &w));
	TAP_REQUIRE(m890_stream_create(a->dev, &s));
	TAP_REQUIRE(m890_event_create(a->dev, &e0));
	TAP_REQUIRE(m890_event_create(a->dev, &e1));
	tap_ok(sh("icnctl stats clear %u && icnctl stats clear %u", a->fid, b->fid) == 0,
	       "counters of both ports cleared");
	TAP_STATUS(m890_event_record(e0, s), M890_SUCCESS);
	TAP_STATUS(m890_memcpy_peer(s, w, 0, src, 0, BIG), M890_SUCCESS);
	TAP_STATUS(m890_event_record(e1, s), M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(s), M890_SUCCESS);
	TAP_STATUS(m890_event_elapsed_time(e0, e1, NULL, &device_ns), M890_SUCCESS);
	err = (device_ns - predicted) / predicted;
	tap_ok(err > -0.05 && err < 0.05,
	       "64 MiB card-to-card copy: modelled %lld ns, spec predicts %.1f ns (%+.2f%%)",
	       (long long)device_ns, predicted, err * 100);
	port_counters(a->fid, &ca);
	port_counters(b->fid, &cb);
	tap_ok(ca.tx == BIG, "a's port counted %llu TX bytes", ca.tx);
	tap_ok(cb.rx == BIG, "b's port counted %llu RX bytes", cb.rx);
	m890_event_destroy(e0);
	m890_event_destroy(e1);
	m890_stream_destroy(s);
	m890_window_free(w);
	m890_buffer_free(src);
	m890_buffer_free(dst);
}

static void card_close(struct card *c)
{
	m890_buffer_free(c->host);
	m890_buffer_free(c->hbm);
	TAP_STATUS(m890_device_close(c->dev), M890_SUCCESS);
}

int main(void)
{
	struct card a, b;
	int n = 0;

	TAP_REQUIRE(m890_device_count(&n));
	if (n < 2) {
		tap_skip("needs two cards", "fabric");
		return tap_done();
	}
	if (sh("icnctl switch reset") != 0) {
		tap_skip("icnctl cannot reset the switch (not root?)", "fabric");
		return tap_done();
	}
	card_open(&a, 0);
	card_open(&b, 1);
	test_partitions(&a, &b);
	test_link_down(&a, &b);
	test_timing(&a, &b);
	card_close(&a);
	card_close(&b);
	tap_ok(sh("icnctl switch reset") == 0, "switch reset at the end");
	return tap_done();
}
