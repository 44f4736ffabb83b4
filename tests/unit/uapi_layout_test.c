// SPDX-License-Identifier: MIT
/*
 * Layout of every uAPI structure and command packet: sizes are multiples
 * of 8 (identical on 32- and 64-bit ABIs: no implicit padding), packets
 * are exactly one 64-byte ring slot, and the fields the hardware spec
 * places at fixed byte offsets are there.  Compile-time checks; the TAP
 * lines name what was checked.
 */
#include <stddef.h>
#include <stdio.h>

#include <drm/m890_accel.h>
#include <linux/icn_netlink.h>

#define CHECK_SIZE(type, size) \
	_Static_assert(sizeof(type) == (size), #type " size"); \
	_Static_assert(sizeof(type) % 8 == 0, #type " not padded to 64 bits")
#define CHECK_OFF(type, field, off) \
	_Static_assert(offsetof(type, field) == (off), #type "." #field " offset")

CHECK_SIZE(struct drm_m890_query, 24);
CHECK_SIZE(struct drm_m890_device_info, 64);
CHECK_SIZE(struct drm_m890_bo_create, 32);
CHECK_SIZE(struct drm_m890_bo_info, 40);
CHECK_SIZE(struct drm_m890_queue_create, 16);
CHECK_SIZE(struct drm_m890_queue_destroy, 8);
CHECK_SIZE(struct drm_m890_submit, 32);
CHECK_OFF(struct drm_m890_submit, packets, 8);
CHECK_OFF(struct drm_m890_submit, seqno, 24);
CHECK_SIZE(struct drm_m890_bo_wait, 16);
CHECK_OFF(struct drm_m890_bo_wait, timeout_ns, 8);
CHECK_SIZE(struct drm_m890_queue_state, 24);
CHECK_OFF(struct drm_m890_queue_state, error, 4);
CHECK_OFF(struct drm_m890_queue_state, submitted_seqno, 8);
CHECK_OFF(struct drm_m890_queue_state, completed_seqno, 16);
CHECK_SIZE(struct drm_m890_fabric_export, 24);
CHECK_OFF(struct drm_m890_fabric_export, flags, 4);
CHECK_OFF(struct drm_m890_fabric_export, key, 8);
CHECK_OFF(struct drm_m890_fabric_export, fabric_id, 16);
CHECK_OFF(struct drm_m890_fabric_export, slot, 20);
CHECK_SIZE(struct drm_m890_fabric_revoke, 8);
CHECK_OFF(struct drm_m890_fabric_revoke, flags, 4);
CHECK_SIZE(struct drm_m890_fabric_import, 40);
CHECK_OFF(struct drm_m890_fabric_import, flags, 4);
CHECK_OFF(struct drm_m890_fabric_import, key, 8);
CHECK_OFF(struct drm_m890_fabric_import, handle, 16);
CHECK_OFF(struct drm_m890_fabric_import, pad, 20);
CHECK_OFF(struct drm_m890_fabric_import, size, 24);
CHECK_OFF(struct drm_m890_fabric_import, va, 32);

CHECK_SIZE(union m890_packet, M890_PKT_SIZE);
CHECK_SIZE(struct m890_pkt_nop, 64);
CHECK_SIZE(struct m890_pkt_copy, 64);
CHECK_SIZE(struct m890_pkt_copy_2d, 64);
CHECK_SIZE(struct m890_pkt_fill, 64);
CHECK_SIZE(struct m890_pkt_signal, 64);
CHECK_SIZE(struct m890_pkt_wait, 64);
CHECK_SIZE(struct m890_pkt_timestamp, 64);
CHECK_SIZE(struct m890_pkt_gather, 64);
CHECK_SIZE(struct m890_pkt_reduce, 64);
CHECK_SIZE(struct m890_pkt_mx, 64);
CHECK_SIZE(struct m890_pkt_fence, 64);
CHECK_SIZE(struct m890_pkt_gemm, 64);
CHECK_OFF(struct m890_pkt_gemm, k_blocks, 8);
CHECK_OFF(struct m890_pkt_gemm, cap, 12);
CHECK_OFF(struct m890_pkt_gemm, a, 16);
CHECK_OFF(struct m890_pkt_gemm, weight, 56);
CHECK_OFF(struct m890_pkt_copy, src, 8);
CHECK_OFF(struct m890_pkt_copy, dst, 16);
CHECK_OFF(struct m890_pkt_copy, size, 24);
CHECK_OFF(struct m890_pkt_copy_2d, height, 40);
CHECK_OFF(struct m890_pkt_reduce, weight, 32);
CHECK_OFF(struct m890_pkt_reduce, rows, 40);
CHECK_OFF(struct m890_pkt_fence, value, 8);

int main(void)
{
	static const char *const checks[] = {
		"ioctl argument structs are padded to 64 bits",
		"ioctl argument sizes match the uAPI document",
		"every packet is one 64-byte ring slot",
		"packet field offsets match the hardware spec",
		"icn netlink enums start from 1",
	};
	unsigned int i, n = sizeof(checks) / sizeof(checks[0]);

	_Static_assert(ICN_CMD_SWITCH_GET == 1 && ICN_A_SWITCH_PORTS == 1 &&
		       ICN_PORT_STATE_DOWN == 1, "netlink enums from 1");
	for (i = 0; i < n; i++)
		printf("ok %u - %s\n", i + 1, checks[i]);
	printf("1..%u\n%u passed, 0 failed\n", n, n);
	return 0;
}
