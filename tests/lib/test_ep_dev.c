// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 EP with routing on the card (guest)
 *
 * One communicator over every card, an EP object created with
 * M890_EP_F_DEVICE_ROUTING.  For bf16, MXFP8 and MXFP4 dispatch: random
 * routing (unused slots, a rank without tokens, tokens without an
 * expert) in HBM, a dispatch, then every card's receive rows, meta rows,
 * per-source counts and expert lists against a host reference built from
 * the definition in m890.h; partial rows the test writes for every
 * received row; the combine against the host sum in the documented
 * order.  Each type runs twice (the two receive halves) with the same
 * bytes.  Then skewed routing (every token to expert 0) past a small
 * capacity (M890_ERROR_CAPACITY from the card, counts still right), the
 * refused calls (a dispatch without a combine before, a combine without
 * a dispatch, the host-routing calls on this object, host buffers), and
 * a card without spec 1.1 refused at creation.
 */
#include "ep_dev_ref.h"

static void run_type(m890_comm_t comm, int type, const char *name)
{
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;
	struct m890_ep_info in;
	static uint16_t got[2][MAXN][T * H];
	m890_ep_layout_t lo;
	m890_ep_t ep;
	char what[64];

	cfg.flags = M890_EP_F_DEVICE_ROUTING;
	cfg.max_tokens_per_rank = T;
	cfg.hidden = H;
	cfg.num_experts = 4 * (uint32_t)n;
	cfg.top_k = K;
	cfg.dispatch_type = (uint32_t)type;
	TAP_STATUS(m890_ep_create(comm, &cfg, &ep), M890_SUCCESS);
	TAP_REQUIRE(m890_ep_get_info(ep, &in));
	TAP_REQUIRE(m890_ep_layout_create(ep, &lo));
	make_routing((int)cfg.num_experts, 0);
	upload();
	for (int round = 0; round < 2; round++) {
		snprintf(what, sizeof(what), "%s dispatch, half %d", name, round);
		TAP_STATUS(m890_ep_dispatch_device(ep, lo, x, nt, ids, wts, str), M890_SUCCESS);
		TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);
		tap_ok(check_dispatch(lo, &in, type, round, what),
		       "%s: rows, meta, counts and expert lists equal the reference", what);
		TAP_STATUS(m890_ep_combine_device(ep, lo, out, str), M890_SUCCESS);
		TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);
		snprintf(what, sizeof(what), "%s combine, half %d", name, round);
		tap_ok(check_combine(&in, got[round], what),
		       "%s: every token's sum equals the reference", what);
	}
	tap_ok(!memcmp(got[0], got[1], sizeof(got[0])),
	       "%s: both halves give identical bytes", name);
	TAP_STATUS(m890_ep_layout_destroy(lo), M890_SUCCESS);
	TAP_STATUS(m890_ep_destroy(ep), M890_SUCCESS);
}

static void refusals(m890_comm_t comm)
{
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;
	m890_ep_layout_t lo, lo2;
	m890_ep_t ep;
	uint32_t counts[4 * MAXN];
	const int32_t *hidx[MAXN];
	const float *hw[MAXN];
	m890_buffer_t hosts[MAXN];
	m890_status_t st;

	cfg.flags = M890_EP_F_DEVICE_ROUTING;
	cfg.max_tokens_per_rank = T;
	cfg.hidden = H;
	cfg.num_experts = 4 * (uint32_t)n;
	cfg.top_k = K;
	cfg.expert_capacity = 2;
	TAP_REQUIRE(m890_ep_create(comm, &cfg, &ep));
	TAP_REQUIRE(m890_ep_layout_create(ep, &lo));
	TAP_REQUIRE(m890_ep_layout_create(ep, &lo2));
	TAP_STATUS(m890_ep_combine_device(ep, lo, out, str), M890_ERROR_INVALID_ARGUMENT);
	for (int i = 0; i < n; i++) {
		hidx[i] = tid[i];
		hw[i] = tw[i];
		hosts[i] = host[i];
	}
	TAP_STATUS(m890_ep_dispatch(ep, lo, x, nt, hidx, hw, x, x, str),
		   M890_ERROR_INVALID_ARGUMENT);
	tap_ok(strstr(m890_get_last_error(), "m890_ep_dispatch_device") != NULL,
	       "the host-routing dispatch is refused on it: %s", m890_get_last_error());
	TAP_STATUS(m890_ep_dispatch_device(ep, lo, x, nt, hosts, wts, str),
		   M890_ERROR_INVALID_ARGUMENT);
	/* Skewed: every token to expert 0, capacity 2. */
	make_routing((int)cfg.num_experts, 1);
	upload();
	TAP_STATUS(m890_ep_dispatch_device(ep, lo, x, nt, ids, wts, str), M890_SUCCESS);
	TAP_STATUS(m890_ep_dispatch_device(ep, lo2, x, nt, ids, wts, str),
		   M890_ERROR_INVALID_ARGUMENT);
	st = m890_comm_synchronize(comm, str);
	tap_ok(st == M890_ERROR_CAPACITY, "capacity 2 with every token to expert 0: %s (%s)",
	       m890_status_string(st), m890_get_last_error());
	tap_ok(strstr(m890_get_last_error(), "rank 0") != NULL,
	       "... naming the rank of the expert: %s", m890_get_last_error());
	st = m890_ep_layout_counts(lo, counts);
	if (st == M890_SUCCESS) {
		uint32_t want = 0;

		for (int s = 0; s < n; s++)
			want += nt[s];
		tap_ok(counts[0] == want, "the count of expert 0 is still right (%u, want %u)",
		       counts[0], want);
	} else {
		tap_ok(0, "m890_ep_layout_counts: %s", m890_get_last_error());
	}
	m890_ep_layout_destroy(lo2);
	m890_ep_layout_destroy(lo);
	m890_ep_destroy(ep);
}

int main(void)
{
	m890_comm_t comm;
	void *p;

	TAP_REQUIRE(m890_device_count(&n));
	if (n > MAXN)
		n = MAXN;
	{
		struct m890_device_info info = M890_DEVICE_INFO_INIT;
		const uint64_t need = M890_CAP_ENGINES | M890_CAP_ATOMICS |
				      M890_CAP_ROWS;

		TAP_REQUIRE(m890_device_open(0, &dev[0]));
		TAP_REQUIRE(m890_device_get_info(dev[0], &info));
		if ((info.capabilities & need) != need) {
			printf("1..0 # SKIP the cards are spec %u.%u, routing on the card needs 1.1\n",
			       info.spec_version >> 16, info.spec_version & 0xffff);
			return 0;
		}
		m890_device_close(dev[0]);
	}
	for (int i = 0; i < n; i++) {
		TAP_REQUIRE(m890_device_open(i, &dev[i]));
		TAP_REQUIRE(m890_stream_create(dev[i], &str[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], 2ull * T * H, M890_MEM_HBM, &x[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], 4ull * T * K, M890_MEM_HBM, &ids[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], 4ull * T * K, M890_MEM_HBM, &wts[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], 2ull * T * H, M890_MEM_HBM, &out[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], HOST_BYTES, M890_MEM_HOST, &host[i]));
		TAP_REQUIRE(m890_buffer_map(host[i], &p));
		hp[i] = p;
	}
	TAP_REQUIRE(m890_comm_create(dev, n, NULL, &comm));
	run_type(comm, M890_TYPE_BF16, "bf16");
	run_type(comm, M890_TYPE_MXFP8, "MXFP8");
	run_type(comm, M890_TYPE_MXFP4, "MXFP4");
	refusals(comm);
	m890_comm_destroy(comm);
	for (int i = 0; i < n; i++) {
		m890_buffer_free(x[i]);
		m890_buffer_free(ids[i]);
		m890_buffer_free(wts[i]);
		m890_buffer_free(out[i]);
		m890_buffer_free(host[i]);
		m890_stream_destroy(str[i]);
		m890_device_close(dev[i]);
	}
	return tap_done();
}
