/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ICN Switch 1.0 management commands (spec §8.3) on the plain-C switch
 * core, shared by the card model (in-process switch) and icn-switchd.
 */
#ifndef ICN_SWITCH_CMD_H
#define ICN_SWITCH_CMD_H

#include <stdbool.h>
#include <stdint.h>

#include "icn_switch_core.h"

/*
 * Execute the SW_CMD word @cmd (opcode bits 7:0, argument bits 15:8,
 * reserved bits 31:16) with SW_ARG0/SW_ARG1 = @arg0/@arg1, issued by the
 * card on @port, which is attached to the switch; @mgmt says whether that
 * card has management permission.  Fills all M890_SW_DATA_WORDS words of
 * @data (zero unless the result is M890_SW_OK) and returns an enum
 * m890_sw_status.  Checks are made in the spec's order: EINVAL (opcode,
 * reserved bits), ERANGE, EPERM, EINVAL (argument values), then the
 * opcode's own statuses (§8.7: EBUSY, ENOENT, EPERM, ENOLINK).  ENODEV
 * is the caller's: only it knows whether the card is attached.
 *
 * The export and window opcodes (9..12) need no management permission.
 * On success of one of them *@changed (if not NULL) receives the export
 * whose state changed, as owner port << 8 | slot, so that icn-switchd
 * can send it to its clients; it is set to -1 for the other opcodes and
 * for failures.
 */
uint32_t icn_switch_command(struct icn_switch *sw, unsigned int port,
                            bool mgmt, uint32_t cmd, uint64_t arg0,
                            uint64_t arg1, uint64_t *data, int *changed);

#endif /* ICN_SWITCH_CMD_H */
