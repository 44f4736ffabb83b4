/* SPDX-License-Identifier: MIT */
/*
 * libm890 - runtime library for M890 accelerator cards.  Programs include
 * this header; it includes the library's headers, one per concern:
 *
 * - m890_runtime.h: status codes and the conventions of every call,
 *   versions, devices, buffers and windows, streams, memory operations,
 *   events and the element types;
 * - m890_compute.h: compute packets (MX quantize and dequantize, gather,
 *   scatter, reduce) and their host references;
 * - m890_coll.h: communicators (unique ids included), all-to-all(v),
 *   grouped send/recv, the device collectives and groups;
 * - m890_ep.h: expert parallelism (MoE dispatch and combine).
 *
 * Each of them compiles on its own (it includes what it uses).
 * Documentation/libm890-api.rst is the reference generated from them.
 */
#ifndef M890_H
#define M890_H

#include "m890_runtime.h"
#include "m890_compute.h"
#include "m890_coll.h"
#include "m890_ep.h"

#endif /* M890_H */
