/* prism-onnx-wire.h — a bounded walk of protobuf's wire format
 *
 * protobuf-c unpacks nested messages by recursion and allocates as it goes,
 * with no limit of its own: a crafted file of a few megabytes could nest a
 * million messages (a stack overflow) or ask for gigabytes of small
 * allocations.  This walk reads the same bytes first, with an explicit
 * stack, and refuses them before protobuf-c sees them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

G_BEGIN_DECLS

/* Messages nested in messages (an ONNX model needs 7: model, graph, value
 * info, type, tensor type, shape, dim). */
#define PRISM_ONNX_WIRE_MAX_DEPTH     32
/* Messages in one file. */
#define PRISM_ONNX_WIRE_MAX_MESSAGES  (1u << 20)
/* What protobuf-c would allocate, estimated from the messages' sizes, the
 * repeated elements and the bytes of strings and unknown fields. */
#define PRISM_ONNX_WIRE_MAX_MEMORY    ((guint64) 1 << 30)

/**
 * prism_onnx_wire_check:
 * @data: (array length=length): the bytes
 * @descriptor: the message type they encode (e.g. onnx__model_proto__descriptor)
 *
 * Walks every field of every message without recursion: tags, lengths that
 * stay inside their message, no groups, and the limits above.
 *
 * Returns: %TRUE when protobuf-c may unpack @data, else %FALSE with @error
 *   (%PRISM_ERROR_PARSE for malformed bytes, %PRISM_ERROR_LIMIT for the
 *   limits) naming the byte offset
 */
gboolean prism_onnx_wire_check (const guint8                     *data,
                                gsize                             length,
                                const ProtobufCMessageDescriptor *descriptor,
                                GError                          **error);

G_END_DECLS
