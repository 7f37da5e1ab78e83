/* prism-json-reader.c — reading JSON text that trusts nothing
 *
 * json-glib accepts more than JSON (single quotes, comments, hexadecimal
 * numbers, a second document after the first), wraps integers wider than
 * 64 bits, cuts strings at \u0000 and recurses once per nesting level, so a
 * deep document overflows the stack.  The checker below runs over the text
 * first and accepts RFC 8259 only, with a stack of its own bounded by the
 * depth limit; json-glib then only ever sees text it parses exactly.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#include "prism-error.h"
#include "prism-json-reader.h"

static const PrismJsonLimits limits_by_kind[] = {
  [PRISM_JSON_GRAPH] = { PRISM_JSON_GRAPH_MAX_SIZE, PRISM_JSON_MAX_DEPTH, PRISM_JSON_MAX_VALUES },
  /* Read part by part, each part with its own limits. */
  [PRISM_JSON_RESULTS] = { PRISM_JSON_RESULTS_MAX_SIZE, PRISM_JSON_MAX_DEPTH, 0 },
  [PRISM_JSON_GPU] = { PRISM_JSON_GPU_MAX_SIZE, PRISM_JSON_MAX_DEPTH, PRISM_JSON_MAX_VALUES },
};

const PrismJsonLimits *
prism_json_limits_for (PrismJsonKind kind)
{
  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (limits_by_kind), &limits_by_kind[0]);
  return &limits_by_kind[kind];
}

/* ------------------------------------------------------------------------ */
/* The checker */

/* Objects remember their member names (decoded) to refuse one given twice:
 * a few are compared one by one, more go to a hash table. */
#define LINEAR_KEYS 16

typedef struct
{
  char close;              /* ']' or '}' */
  guint first_key;         /* objects: index of their first name in Checker.keys */
  gsize first_byte;        /* … and of its first byte in Checker.key_bytes */
  GHashTable *many;        /* objects with more than LINEAR_KEYS names: all of them */
} Frame;

typedef struct
{
  gsize start;             /* in Checker.key_bytes */
  gsize len;
  guint hash;
} Key;

typedef struct
{
  const guchar *data;
  gsize len;
  gsize pos;
  guint line;
  gsize line_start;
  const PrismJsonLimits *limits;
  GArray *frames;          /* Frame */
  GArray *keys;            /* Key: the names of the open objects, innermost last */
  GString *key_bytes;
  GString *key;            /* the member name being read, decoded */
  guint64 values;          /* values begun so far */
  GError **error;
} Checker;

static guint
column_of (const Checker *c, gsize pos)
{
  guint col = 1;

  /* Characters, not bytes: continuation bytes do not count. */
  for (gsize i = c->line_start; i < pos && i < c->len; i++)
    if ((c->data[i] & 0xC0) != 0x80)
      col++;
  return col;
}

G_GNUC_PRINTF (4, 5) static gboolean
fail_at (Checker *c, gsize pos, PrismErrorCode code, const char *fmt, ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, fmt);
  msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  if (code == PRISM_ERROR_PARSE)
    g_set_error (c->error, PRISM_ERROR, code, "malformed JSON: line %u, column %u: %s", c->line,
                 column_of (c, pos), msg);
  else
    g_set_error (c->error, PRISM_ERROR, code, "line %u, column %u: %s", c->line, column_of (c, pos),
                 msg);
  return FALSE;
}

/* What a byte that cannot start or continue anything is, for people. */
static char *
describe_byte (const Checker *c, gsize pos)
{
  guchar b;

  if (pos >= c->len)
    return g_strdup ("the end of the document");
  b = c->data[pos];
  if (b == '"')
    return g_strdup ("“\"”");
  if (b > 0x20 && b < 0x7F)
    return g_strdup_printf ("“%c”", b);
  return g_strdup_printf ("the byte 0x%02X", b);
}

/* Messages for what people (and other parsers) take for JSON. */
static gboolean
fail_unexpected (Checker *c, const char *expected)
{
  const guchar *p = c->data + c->pos;
  gsize left = c->len - c->pos;
  g_autofree char *got = describe_byte (c, c->pos);

  if (left >= 2 && p[0] == '/' && (p[1] == '*' || p[1] == '/'))
    return fail_at (c, c->pos, PRISM_ERROR_PARSE, "a comment; JSON has none");
  if (left >= 1 && p[0] == '\'')
    return fail_at (c, c->pos, PRISM_ERROR_PARSE,
                    "a single-quoted string; JSON strings take double quotes");
  if (left >= 1 && g_ascii_isalpha (p[0]))
    {
      gsize n = 0;
      while (n < left && n < 24 && (g_ascii_isalnum (p[n]) || p[n] == '_'))
        n++;
      return fail_at (c, c->pos, PRISM_ERROR_PARSE, "expected %s, got “%.*s” (not a JSON value)",
                      expected, (int) n, (const char *) p);
    }
  if (left == 0)
    return fail_at (c, c->pos, PRISM_ERROR_PARSE, "expected %s, but the document ends", expected);
  return fail_at (c, c->pos, PRISM_ERROR_PARSE, "expected %s, got %s", expected, got);
}

static void
skip_whitespace (Checker *c)
{
  while (c->pos < c->len)
    {
      guchar b = c->data[c->pos];

      if (b == '\n')
        {
          c->line++;
          c->line_start = c->pos + 1;
        }
      else if (b != ' ' && b != '\t' && b != '\r')
        return;
      c->pos++;
    }
}

static gboolean
push (Checker *c, char close)
{
  Frame f = { close, c->keys ? c->keys->len : 0, c->key_bytes ? c->key_bytes->len : 0, NULL };

  if (c->frames->len >= c->limits->max_depth)
    return fail_at (c, c->pos, PRISM_ERROR_LIMIT, "nested deeper than %u levels",
                    c->limits->max_depth);
  g_array_append_val (c->frames, f);
  return TRUE;
}

static void
pop (Checker *c)
{
  Frame *f = &g_array_index (c->frames, Frame, c->frames->len - 1);

  g_clear_pointer (&f->many, g_hash_table_unref);
  g_array_set_size (c->keys, f->first_key);
  g_string_truncate (c->key_bytes, f->first_byte);
  g_array_set_size (c->frames, c->frames->len - 1);
}

static int
hex_value (guchar b)
{
  if (b >= '0' && b <= '9')
    return b - '0';
  if (b >= 'a' && b <= 'f')
    return b - 'a' + 10;
  if (b >= 'A' && b <= 'F')
    return b - 'A' + 10;
  return -1;
}

/* Four hex digits after "\u" at @pos. */
static gboolean
read_hex4 (Checker *c, gsize pos, gunichar *out)
{
  gunichar v = 0;

  if (c->len - pos < 4)
    return FALSE;
  for (guint i = 0; i < 4; i++)
    {
      int h = hex_value (c->data[pos + i]);
      if (h < 0)
        return FALSE;
      v = v * 16 + (gunichar) h;
    }
  *out = v;
  return TRUE;
}

/* Bytes of the UTF-8 sequence at @pos (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), 0 if it is not one. */
static guint
utf8_sequence (const Checker *c, gsize pos)
{
  const guchar *p = c->data + pos;
  gsize left = c->len - pos;
  guchar lo = 0x80, hi = 0xBF;
  guint n;

  if (p[0] >= 0xC2 && p[0] <= 0xDF)
    n = 2;
  else if (p[0] >= 0xE0 && p[0] <= 0xEF)
    {
      n = 3;
      if (p[0] == 0xE0)
        lo = 0xA0;
      else if (p[0] == 0xED)
        hi = 0x9F;
    }
  else if (p[0] >= 0xF0 && p[0] <= 0xF4)
    {
      n = 4;
      if (p[0] == 0xF0)
        lo = 0x90;
      else if (p[0] == 0xF4)
        hi = 0x8F;
    }
  else
    return 0;
  if (left < n || p[1] < lo || p[1] > hi)
    return 0;
  for (guint i = 2; i < n; i++)
    if ((p[i] & 0xC0) != 0x80)
      return 0;
  return n;
}

static const char *
control_name (guchar b)
{
  switch (b)
    {
    case '\n':
      return "a line break";
    case '\r':
      return "a carriage return";
    case '\t':
      return "a tab";
    case 0:
      return "a NUL byte";
    default:
      return "a control character";
    }
}

/* A string at c->pos (its opening quote); with @decode its contents go to
 * c->key. */
static gboolean
check_string (Checker *c, gboolean decode)
{
  gsize start = c->pos;

  if (decode)
    g_string_truncate (c->key, 0);
  c->pos++;
  while (c->pos < c->len)
    {
      guchar b = c->data[c->pos];

      if (b == '"')
        {
          c->pos++;
          return TRUE;
        }
      if (b == '\\')
        {
          guchar e = c->pos + 1 < c->len ? c->data[c->pos + 1] : 0;
          gunichar u;
          const char *simple = strchr ("\"\\/bfnrt", e);

          if (e != 0 && simple != NULL)
            {
              static const char decoded[] = "\"\\/\b\f\n\r\t";
              if (decode)
                g_string_append_c (c->key, decoded[simple - "\"\\/bfnrt"]);
              c->pos += 2;
              continue;
            }
          if (e != 'u')
            {
              if (c->pos + 1 >= c->len)
                break;
              if (e >= 0x20 && e < 0x7F)
                return fail_at (c, c->pos, PRISM_ERROR_PARSE, "the escape “\\%c” is not JSON", e);
              return fail_at (c, c->pos, PRISM_ERROR_PARSE, "a “\\” before the byte 0x%02X is not an escape",
                              e);
            }
          if (!read_hex4 (c, c->pos + 2, &u))
            return fail_at (c, c->pos, PRISM_ERROR_PARSE, "“\\u” must be followed by four hex digits");
          if (u == 0)
            return fail_at (c, c->pos, PRISM_ERROR_PARSE,
                            "“\\u0000” (NUL) in a string is not accepted: it would cut the string short");
          if (u >= 0xDC00 && u <= 0xDFFF)
            return fail_at (c, c->pos, PRISM_ERROR_PARSE,
                            "“\\u%04X” is the second half of a surrogate pair without its first", u);
          if (u >= 0xD800 && u <= 0xDBFF)
            {
              gunichar low;

              if (c->len - c->pos < 12 || c->data[c->pos + 6] != '\\' || c->data[c->pos + 7] != 'u' ||
                  !read_hex4 (c, c->pos + 8, &low) || low < 0xDC00 || low > 0xDFFF)
                return fail_at (c, c->pos, PRISM_ERROR_PARSE,
                                "“\\u%04X” is the first half of a surrogate pair without its second", u);
              u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
              c->pos += 6;
            }
          if (decode)
            g_string_append_unichar (c->key, u);
          c->pos += 6;
          continue;
        }
      if (b < 0x20)
        return fail_at (c, c->pos, PRISM_ERROR_PARSE, "%s (0x%02X) in a string; write it as an escape",
                        control_name (b), b);
      if (b < 0x80)
        {
          /* Plain text runs: the common case, in one go. */
          gsize end = c->pos + 1;
          while (end < c->len && c->data[end] >= 0x20 && c->data[end] < 0x80 && c->data[end] != '"' &&
                 c->data[end] != '\\')
            end++;
          if (decode)
            g_string_append_len (c->key, (const char *) c->data + c->pos, (gssize) (end - c->pos));
          c->pos = end;
          continue;
        }
      {
        guint n = utf8_sequence (c, c->pos);
        if (n == 0)
          return fail_at (c, c->pos, PRISM_ERROR_PARSE, "a string is not valid UTF-8 (the byte 0x%02X)", b);
        if (decode)
          g_string_append_len (c->key, (const char *) c->data + c->pos, n);
        c->pos += n;
      }
    }
  c->pos = start;
  return fail_at (c, start, PRISM_ERROR_PARSE, "a string that is never closed");
}

/* Digits of an integer without sign or leading zeros fit in a gint64? */
static gboolean
integer_fits (const guchar *digits, gsize n, gboolean negative)
{
  const char *limit = negative ? "9223372036854775808" : "9223372036854775807";

  if (n != 19)
    return n < 19;
  return memcmp (digits, limit, 19) <= 0;
}

static gboolean
check_number (Checker *c)
{
  gsize start = c->pos, digits;
  gboolean negative = FALSE, integer = TRUE;

  if (c->data[c->pos] == '-')
    {
      negative = TRUE;
      c->pos++;
    }
  digits = c->pos;
  if (c->pos >= c->len || !g_ascii_isdigit (c->data[c->pos]))
    return fail_at (c, start, PRISM_ERROR_PARSE, "a “-” that no digit follows");
  if (c->data[c->pos] == '0')
    {
      c->pos++;
      if (c->pos < c->len && (c->data[c->pos] == 'x' || c->data[c->pos] == 'X'))
        return fail_at (c, start, PRISM_ERROR_PARSE, "a hexadecimal number; JSON numbers are decimal");
      if (c->pos < c->len && g_ascii_isdigit (c->data[c->pos]))
        return fail_at (c, start, PRISM_ERROR_PARSE, "a number with a leading zero");
    }
  else
    while (c->pos < c->len && g_ascii_isdigit (c->data[c->pos]))
      c->pos++;
  if (integer && !integer_fits (c->data + digits, c->pos - digits, negative) &&
      (c->pos >= c->len || (c->data[c->pos] != '.' && c->data[c->pos] != 'e' && c->data[c->pos] != 'E')))
    return fail_at (c, start, PRISM_ERROR_PARSE,
                    "the integer %.*s%s is out of range (integers must fit in 64 bits)",
                    (int) MIN (c->pos - start, 40), (const char *) c->data + start,
                    c->pos - start > 40 ? "…" : "");
  if (c->pos < c->len && c->data[c->pos] == '.')
    {
      integer = FALSE;
      c->pos++;
      if (c->pos >= c->len || !g_ascii_isdigit (c->data[c->pos]))
        return fail_at (c, start, PRISM_ERROR_PARSE, "a number whose “.” no digit follows");
      while (c->pos < c->len && g_ascii_isdigit (c->data[c->pos]))
        c->pos++;
    }
  if (c->pos < c->len && (c->data[c->pos] == 'e' || c->data[c->pos] == 'E'))
    {
      integer = FALSE;
      c->pos++;
      if (c->pos < c->len && (c->data[c->pos] == '+' || c->data[c->pos] == '-'))
        c->pos++;
      if (c->pos >= c->len || !g_ascii_isdigit (c->data[c->pos]))
        return fail_at (c, start, PRISM_ERROR_PARSE, "a number whose exponent has no digits");
      while (c->pos < c->len && g_ascii_isdigit (c->data[c->pos]))
        c->pos++;
    }
  /* JSON has no infinities: a number too large for a double is not one.
   * Only an exponent or more than 300 digits before the point can be. */
  if (!integer && (memchr (c->data + start, 'e', c->pos - start) != NULL ||
                   memchr (c->data + start, 'E', c->pos - start) != NULL || c->pos - digits > 300))
    {
      g_autofree char *text = g_strndup ((const char *) c->data + start, c->pos - start);
      if (isinf (g_ascii_strtod (text, NULL)))
        return fail_at (c, start, PRISM_ERROR_PARSE, "the number %.*s%s is out of range",
                        (int) MIN (c->pos - start, 40), text, c->pos - start > 40 ? "…" : "");
    }
  return TRUE;
}

static gboolean
check_literal (Checker *c)
{
  static const char * const literals[] = { "true", "false", "null" };

  for (guint i = 0; i < G_N_ELEMENTS (literals); i++)
    {
      gsize n = strlen (literals[i]);
      if (c->len - c->pos >= n && memcmp (c->data + c->pos, literals[i], n) == 0 &&
          (c->len - c->pos == n || !g_ascii_isalnum (c->data[c->pos + n])))
        {
          c->pos += n;
          return TRUE;
        }
    }
  return fail_unexpected (c, "a value");
}

/* Adds c->key to the names of @f; FALSE if it is there already. */
static gboolean
remember_key (Checker *c, Frame *f)
{
  guint hash = g_str_hash (c->key->str);
  guint n = c->keys->len - f->first_key;
  Key k = { c->key_bytes->len, c->key->len, hash };

  if (f->many != NULL)
    return g_hash_table_add (f->many, g_strndup (c->key->str, c->key->len));
  for (guint i = f->first_key; i < c->keys->len; i++)
    {
      const Key *old = &g_array_index (c->keys, Key, i);
      if (old->hash == hash && old->len == c->key->len &&
          memcmp (c->key_bytes->str + old->start, c->key->str, c->key->len) == 0)
        return FALSE;
    }
  if (n >= LINEAR_KEYS)
    {
      /* A large object: its names move to a table (and leave the list). */
      f->many = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint i = f->first_key; i < c->keys->len; i++)
        {
          const Key *old = &g_array_index (c->keys, Key, i);
          g_hash_table_add (f->many, g_strndup (c->key_bytes->str + old->start, old->len));
        }
      g_array_set_size (c->keys, f->first_key);
      g_string_truncate (c->key_bytes, f->first_byte);
      return g_hash_table_add (f->many, g_strndup (c->key->str, c->key->len));
    }
  g_string_append_len (c->key_bytes, c->key->str, (gssize) c->key->len);
  g_array_append_val (c->keys, k);
  return TRUE;
}

/* A member name at c->pos, then its colon. */
static gboolean
check_key (Checker *c)
{
  Frame *f = &g_array_index (c->frames, Frame, c->frames->len - 1);
  gsize start = c->pos;

  if (c->pos >= c->len || c->data[c->pos] != '"')
    return fail_unexpected (c, "a member name (a string in double quotes)");
  if (!check_string (c, TRUE))
    return FALSE;
  if (!remember_key (c, f))
    return fail_at (c, start, PRISM_ERROR_PARSE,
                    "the member “%.*s%s” appears twice in one object (which one counts is not defined)",
                    (int) MIN (c->key->len, 64), c->key->str, c->key->len > 64 ? "…" : "");
  skip_whitespace (c);
  if (c->pos >= c->len || c->data[c->pos] != ':')
    return fail_unexpected (c, "“:” after the member name");
  c->pos++;
  return TRUE;
}

typedef enum
{
  EXPECT_VALUE,
  EXPECT_KEY,
  AFTER_VALUE,
} State;

static gboolean
check_document (Checker *c)
{
  State state = EXPECT_VALUE;

  if (c->len >= 3 && c->data[0] == 0xEF && c->data[1] == 0xBB && c->data[2] == 0xBF)
    return fail_at (c, 0, PRISM_ERROR_PARSE, "a byte order mark (U+FEFF) before the document");
  skip_whitespace (c);
  if (c->pos == c->len)
    {
      g_set_error_literal (c->error, PRISM_ERROR, PRISM_ERROR_PARSE, "the document is empty");
      return FALSE;
    }
  for (;;)
    {
      skip_whitespace (c);
      switch (state)
        {
        case EXPECT_VALUE:
          if (++c->values > c->limits->max_values && c->limits->max_values > 0)
            return fail_at (c, c->pos, PRISM_ERROR_LIMIT, "more than %u values in the document",
                            c->limits->max_values);
          if (c->pos >= c->len && c->frames->len > 0)
            return fail_at (c, c->pos, PRISM_ERROR_PARSE, "the document ends inside an %s",
                            g_array_index (c->frames, Frame, c->frames->len - 1).close == '}' ? "object" : "array");
          if (c->pos >= c->len)
            return fail_unexpected (c, "a value");
          switch (c->data[c->pos])
            {
            case '{':
              if (!push (c, '}'))
                return FALSE;
              c->pos++;
              skip_whitespace (c);
              if (c->pos < c->len && c->data[c->pos] == '}')
                {
                  c->pos++;
                  pop (c);
                  state = AFTER_VALUE;
                }
              else
                state = EXPECT_KEY;
              continue;
            case '[':
              if (!push (c, ']'))
                return FALSE;
              c->pos++;
              skip_whitespace (c);
              if (c->pos < c->len && c->data[c->pos] == ']')
                {
                  c->pos++;
                  pop (c);
                  state = AFTER_VALUE;
                }
              continue;
            case '"':
              if (!check_string (c, FALSE))
                return FALSE;
              break;
            case '-':
            case '0' ... '9':
              if (!check_number (c))
                return FALSE;
              break;
            default:
              if (!check_literal (c))
                return FALSE;
              break;
            }
          state = AFTER_VALUE;
          break;

        case EXPECT_KEY:
          if (c->pos >= c->len)
            return fail_at (c, c->pos, PRISM_ERROR_PARSE, "the document ends inside an object");
          if (!check_key (c))
            return FALSE;
          state = EXPECT_VALUE;
          break;

        case AFTER_VALUE:
          if (c->frames->len == 0)
            {
              if (c->pos < c->len)
                return fail_at (c, c->pos, PRISM_ERROR_PARSE,
                                "more text after the document (only one JSON value is read)");
              return TRUE;
            }
          {
            char close = g_array_index (c->frames, Frame, c->frames->len - 1).close;

            if (c->pos < c->len && c->data[c->pos] == ',')
              {
                gsize comma = c->pos;

                c->pos++;
                skip_whitespace (c);
                if (c->pos < c->len && (c->data[c->pos] == ']' || c->data[c->pos] == '}'))
                  return fail_at (c, comma, PRISM_ERROR_PARSE, "a trailing comma before “%c”",
                                  c->data[c->pos]);
                state = close == '}' ? EXPECT_KEY : EXPECT_VALUE;
              }
            else if (c->pos < c->len && c->data[c->pos] == close)
              {
                c->pos++;
                pop (c);
              }
            else if (c->pos >= c->len)
              return fail_at (c, c->pos, PRISM_ERROR_PARSE, "the document ends inside an %s",
                              close == '}' ? "object" : "array");
            else
              return fail_unexpected (c, close == '}' ? "“,” or “}”" : "“,” or “]”");
          }
          break;

        default:
          g_assert_not_reached ();
        }
    }
}

gboolean
prism_json_check_text (const char *data, gsize length, const PrismJsonLimits *limits,
                       GError **error)
{
  Checker c = { 0, };
  gboolean ok;

  g_return_val_if_fail (data != NULL || length == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (limits == NULL)
    limits = prism_json_limits_for (PRISM_JSON_GRAPH);
  if (length > limits->max_size)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "the document has %" G_GSIZE_FORMAT " bytes; at most %" G_GSIZE_FORMAT " are read",
                   length, limits->max_size);
      return FALSE;
    }
  c.data = (const guchar *) (data ? data : "");
  c.len = length;
  c.line = 1;
  c.limits = limits;
  c.frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  c.keys = g_array_new (FALSE, FALSE, sizeof (Key));
  c.key_bytes = g_string_new (NULL);
  c.key = g_string_new (NULL);
  c.error = error;
  ok = check_document (&c);
  while (c.frames->len > 0)
    pop (&c);
  g_array_unref (c.frames);
  g_array_unref (c.keys);
  g_string_free (c.key_bytes, TRUE);
  g_string_free (c.key, TRUE);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* Reading files */

static const char *
file_kind (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a folder";
  if (S_ISFIFO (mode))
    return "a FIFO (named pipe)";
  if (S_ISCHR (mode))
    return "a character device";
  if (S_ISBLK (mode))
    return "a block device";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a plain file";
}

static gboolean
fail_errno (GError **error, const char *path, const char *what, int saved)
{
  g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "cannot %s “%s”: %s", what, path,
               g_strerror (saved));
  return FALSE;
}

static gboolean
check_stat (const char *path, const struct stat *st, gsize max_size, GError **error)
{
  if (!S_ISREG (st->st_mode))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "“%s” is %s, not a regular file", path,
                   file_kind (st->st_mode));
      return FALSE;
    }
  if ((guint64) st->st_size > max_size)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "“%s” has %" G_GINT64_FORMAT " bytes; at most %" G_GSIZE_FORMAT " are read", path,
                   (gint64) st->st_size, max_size);
      return FALSE;
    }
  return TRUE;
}

char *
prism_json_read_file (const char *path, gsize max_size, gsize *length, GError **error)
{
  g_autofree char *buf = NULL;
  struct stat st;
  gsize size, got = 0;
  int fd;

  g_return_val_if_fail (path != NULL && length != NULL, NULL);
  *length = 0;
  /* Refused by kind before it is opened (opening some devices does
   * something), then again on the open file (it may have been replaced). */
  if (stat (path, &st) != 0)
    {
      fail_errno (error, path, "read", errno);
      return NULL;
    }
  if (!check_stat (path, &st, max_size, error))
    return NULL;
  /* O_NONBLOCK: a FIFO put there meanwhile must not block the open. */
  fd = g_open (path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0)
    {
      fail_errno (error, path, "open", errno);
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !check_stat (path, &st, max_size, error))
    {
      int saved = errno;
      if (error != NULL && *error == NULL)
        fail_errno (error, path, "read", saved);
      close (fd);
      return NULL;
    }
  /* The file may grow while it is read: never more than the limit + 1. */
  size = (gsize) st.st_size + 1;
  buf = g_malloc (size + 1);
  for (;;)
    {
      gssize n;

      if (got == size)
        {
          if (size > max_size)
            break;
          size = MIN (MAX (size * 2, 4096), max_size + 1);
          buf = g_realloc (buf, size + 1);
        }
      n = read (fd, buf + got, size - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          close (fd);
          fail_errno (error, path, "read", saved);
          return NULL;
        }
      if (n == 0)
        break;
      got += (gsize) n;
    }
  close (fd);
  if (got > max_size)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   "“%s” grew past %" G_GSIZE_FORMAT " bytes while it was read", path, max_size);
      return NULL;
    }
  buf[got] = '\0';
  *length = got;
  return g_steal_pointer (&buf);
}

JsonNode *
prism_json_parse (const char *data, gsize length, const PrismJsonLimits *limits, GError **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local = NULL;

  if (!prism_json_check_text (data, length, limits, error))
    return NULL;
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, data, (gssize) length, &local))
    {
      /* Not expected once the text is checked: json-glib disagrees. */
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_PARSE, "malformed JSON: %s", local->message);
      return NULL;
    }
  return json_parser_steal_root (parser);
}

JsonNode *
prism_json_load_file (const char *path, const PrismJsonLimits *limits, GError **error)
{
  g_autofree char *data = NULL;
  gsize len;
  JsonNode *root;

  if (limits == NULL)
    limits = prism_json_limits_for (PRISM_JSON_GRAPH);
  data = prism_json_read_file (path, limits->max_size, &len, error);
  if (data == NULL)
    return NULL;
  root = prism_json_parse (data, len, limits, error);
  if (root == NULL)
    g_prefix_error (error, "%s: ", path);
  return root;
}

/* ------------------------------------------------------------------------ */
/* Finding parts of checked text */

static gsize
skip_ws_at (const char *data, gsize pos, gsize end)
{
  while (pos < end && (data[pos] == ' ' || data[pos] == '\t' || data[pos] == '\n' || data[pos] == '\r'))
    pos++;
  return pos;
}

/* The end of the string that opens at @pos (checked text: it is closed). */
static gsize
skip_string_at (const char *data, gsize pos, gsize end)
{
  for (pos++; pos < end; pos++)
    {
      if (data[pos] == '\\')
        pos++;
      else if (data[pos] == '"')
        return pos + 1;
    }
  return end;
}

/* The end of the value that starts at @pos. */
static gsize
skip_value_at (const char *data, gsize pos, gsize end)
{
  gsize depth = 0;

  do
    {
      char b = data[pos];

      if (b == '"')
        {
          pos = skip_string_at (data, pos, end);
          continue;
        }
      if (b == '[' || b == '{')
        depth++;
      else if (b == ']' || b == '}')
        depth--;
      else if (depth == 0)
        {
          /* A number or a literal: up to the next delimiter. */
          while (pos < end && strchr (",]} \t\r\n", data[pos]) == NULL)
            pos++;
          return pos;
        }
      pos++;
    }
  while (depth > 0 && pos < end);
  return pos;
}

/* Decodes the member name at @pos with the checker (names may hold escapes). */
static gboolean
key_equals (const char *data, gsize pos, gsize end, const char *name)
{
  Checker c = { 0, };
  gboolean equal;

  c.data = (const guchar *) data;
  c.len = end;
  c.pos = pos;
  c.line = 1;
  c.key = g_string_new (NULL);
  equal = check_string (&c, TRUE) && g_str_equal (c.key->str, name) && strlen (name) == c.key->len;
  g_string_free (c.key, TRUE);
  return equal;
}

gboolean
prism_json_find_member (const char *data, gsize length, const char *name, PrismJsonSpan *span)
{
  gsize pos = skip_ws_at (data, 0, length);

  if (pos >= length || data[pos] != '{')
    return FALSE;
  pos = skip_ws_at (data, pos + 1, length);
  while (pos < length && data[pos] == '"')
    {
      gboolean match = key_equals (data, pos, length, name);
      gsize value;

      pos = skip_string_at (data, pos, length);
      pos = skip_ws_at (data, pos, length);   /* ':' */
      value = skip_ws_at (data, pos + 1, length);
      pos = skip_value_at (data, value, length);
      if (match)
        {
          span->start = value;
          span->end = pos;
          return TRUE;
        }
      pos = skip_ws_at (data, pos, length);
      if (pos < length && data[pos] == ',')
        pos = skip_ws_at (data, pos + 1, length);
    }
  return FALSE;
}

GArray *
prism_json_array_elements (const char *data, const PrismJsonSpan *array, guint max)
{
  g_autoptr(GArray) spans = NULL;
  gsize pos = array->start, end = array->end;

  if (pos >= end || data[pos] != '[')
    return NULL;
  spans = g_array_new (FALSE, FALSE, sizeof (PrismJsonSpan));
  pos = skip_ws_at (data, pos + 1, end);
  while (pos < end && data[pos] != ']' && spans->len <= max)
    {
      PrismJsonSpan s;

      s.start = pos;
      s.end = pos = skip_value_at (data, pos, end);
      g_array_append_val (spans, s);
      pos = skip_ws_at (data, pos, end);
      if (pos < end && data[pos] == ',')
        pos = skip_ws_at (data, pos + 1, end);
    }
  return g_steal_pointer (&spans);
}

/* json-glib 1.6 appends ".0" to every double it prints without a '.',
 * exponent forms included: 1e-10 becomes "1e-10.0", which no JSON reader
 * (ours first) accepts.  Drops that ".0" after an exponent, outside
 * strings. */
static void
repair_exponents (char *text)
{
  gboolean in_string = FALSE;
  char *out = text;

  for (const char *p = text; *p != '\0'; p++)
    {
      *out++ = *p;
      if (in_string)
        {
          if (*p == '\\' && p[1] != '\0')
            *out++ = *++p;
          else if (*p == '"')
            in_string = FALSE;
          continue;
        }
      if (*p == '"')
        {
          in_string = TRUE;
          continue;
        }
      if ((*p == 'e' || *p == 'E') && p > text && (g_ascii_isdigit (p[-1]) || p[-1] == '.'))
        {
          const char *q = p + 1;

          if (*q == '+' || *q == '-')
            *out++ = *q++;
          while (g_ascii_isdigit (*q))
            *out++ = *q++;
          if (q[0] == '.' && q[1] == '0' && !g_ascii_isdigit (q[2]))
            q += 2;
          p = q - 1;
        }
    }
  *out = '\0';
}

char *
prism_json_to_text (JsonNode *root,
                    gboolean  pretty,
                    gsize    *length)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  char *text;

  g_return_val_if_fail (root != NULL, NULL);
  json_generator_set_pretty (gen, pretty);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  repair_exponents (text);
  if (length != NULL)
    *length = strlen (text);
  return text;
}
