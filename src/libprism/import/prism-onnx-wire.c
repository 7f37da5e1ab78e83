/* prism-onnx-wire.c — a bounded walk of protobuf's wire format
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "prism-onnx-wire.h"
#include "prism-error.h"

typedef struct
{
  const ProtobufCMessageDescriptor *descriptor;
  gsize end;
} Frame;

typedef struct
{
  const guint8 *data;
  gsize pos;
  Frame stack[PRISM_ONNX_WIRE_MAX_DEPTH + 1];
  guint depth;       /* frames in use */
  guint messages;
  guint64 memory;
} Walk;

static gboolean
fail (GError **error, int code, gsize offset, const char *what)
{
  g_set_error (error, PRISM_ERROR, code, "not an ONNX model: byte %" G_GSIZE_FORMAT ": %s", offset, what);
  return FALSE;
}

/* Reads a varint of at most 10 bytes ending at or before @end. */
static gboolean
read_varint (Walk *w, gsize end, guint64 *out, GError **error)
{
  guint64 value = 0;
  gsize start = w->pos;

  for (guint shift = 0; shift < 70; shift += 7)
    {
      guint8 byte;

      if (w->pos >= end)
        return fail (error, PRISM_ERROR_PARSE, start, "a number runs past the end of its message");
      byte = w->data[w->pos++];
      if (shift < 64)
        value |= (guint64) (byte & 0x7f) << shift;
      if ((byte & 0x80) == 0)
        {
          *out = value;
          return TRUE;
        }
    }
  return fail (error, PRISM_ERROR_PARSE, start, "a number longer than 10 bytes");
}

/* The memory protobuf-c allocates for the elements of a packed field. */
static guint64
packed_elements (const ProtobufCFieldDescriptor *field, const guint8 *bytes, gsize len)
{
  guint64 n = 0;

  switch (field->type)
    {
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
      return len / 4;
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      return len / 8;
    default:
      /* Varints: one element per byte without the continuation bit. */
      for (gsize i = 0; i < len; i++)
        n += (bytes[i] & 0x80) == 0;
      return n;
    }
}

static gboolean
enter_message (Walk *w, const ProtobufCMessageDescriptor *descriptor, gsize end, GError **error)
{
  if (w->depth > PRISM_ONNX_WIRE_MAX_DEPTH - 1)
    return fail (error, PRISM_ERROR_LIMIT, w->pos,
                 "messages nest deeper than " G_STRINGIFY (PRISM_ONNX_WIRE_MAX_DEPTH) " levels");
  if (++w->messages > PRISM_ONNX_WIRE_MAX_MESSAGES)
    return fail (error, PRISM_ERROR_LIMIT, w->pos, "more than 1048576 messages");
  w->memory += descriptor->sizeof_message + sizeof (gpointer);
  w->stack[w->depth].descriptor = descriptor;
  w->stack[w->depth].end = end;
  w->depth++;
  return TRUE;
}

/* One field of the innermost message: skips it, or enters it when it is a
 * message of its own. */
static gboolean
walk_field (Walk *w, GError **error)
{
  const Frame *top = &w->stack[w->depth - 1];
  const ProtobufCFieldDescriptor *field;
  gsize start = w->pos;
  guint64 key, len;

  if (!read_varint (w, top->end, &key, error))
    return FALSE;
  if ((key >> 3) == 0 || (key >> 3) > G_MAXUINT32)
    return fail (error, PRISM_ERROR_PARSE, start, "a field number out of range");
  field = protobuf_c_message_descriptor_get_field (top->descriptor, (unsigned) (key >> 3));
  /* Repeated and unknown fields are stored one element at a time. */
  w->memory += 16;
  switch (key & 7)
    {
    case 0:
      return read_varint (w, top->end, &len, error);
    case 1:
    case 5:
      len = (key & 7) == 1 ? 8 : 4;
      if (top->end - w->pos < len)
        return fail (error, PRISM_ERROR_PARSE, start, "a fixed-size field runs past the end of its message");
      w->pos += len;
      return TRUE;
    case 2:
      if (!read_varint (w, top->end, &len, error))
        return FALSE;
      if (len > top->end - w->pos)
        return fail (error, PRISM_ERROR_PARSE, start, "a field's length runs past the end of its message");
      if (field != NULL && field->type == PROTOBUF_C_TYPE_MESSAGE)
        return enter_message (w, field->descriptor, w->pos + len, error);
      if (field != NULL && field->label == PROTOBUF_C_LABEL_REPEATED
          && field->type != PROTOBUF_C_TYPE_STRING && field->type != PROTOBUF_C_TYPE_BYTES)
        w->memory += 8 * packed_elements (field, w->data + w->pos, len);
      else
        w->memory += len + 1;
      w->pos += len;
      return TRUE;
    default:
      return fail (error, PRISM_ERROR_PARSE, start, "a group or an unknown wire type");
    }
}

gboolean
prism_onnx_wire_check (const guint8 *data, gsize length, const ProtobufCMessageDescriptor *descriptor,
                       GError **error)
{
  g_autofree Walk *w = g_new0 (Walk, 1);

  w->data = data;
  if (!enter_message (w, descriptor, length, error))
    return FALSE;
  while (w->depth > 0)
    {
      if (w->pos == w->stack[w->depth - 1].end)
        {
          w->depth--;
          continue;
        }
      if (!walk_field (w, error))
        return FALSE;
      if (w->memory > PRISM_ONNX_WIRE_MAX_MEMORY)
        return fail (error, PRISM_ERROR_LIMIT, w->pos, "unpacking it would take more than 1 GiB");
    }
  return TRUE;
}
