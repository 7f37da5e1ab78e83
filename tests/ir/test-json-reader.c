/* test-json-reader.c — the strict JSON checker and the bounded file reader
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <glib/gstdio.h>

#include "prism-error.h"
#include "prism-gpu-target.h"
#include "prism-json-reader.h"

static char *tmpdir;

/* RFC 8259 texts, corner cases included: accepted, and json-glib reads them
 * to the value meant. */
static void
test_accepted (void)
{
  static const char * const texts[] = {
    "{}", "[]", "0", "-0", "1", "-1", "1.5", "-0.0e-0", "1E+2", "1e-400", "3.0E3",
    "9223372036854775807", "-9223372036854775808", "1.8446744073709551617e19",
    "\"\"", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\u00e9\\u20AC\"", "\"\\ud83d\\ude00\"",
    "\"é€😀\"", "\"\x7f\xc2\x80\"", "true", "false", "null",
    " \t\r\n[ 1 , 2 ]\n", "{\"a\": {\"a\": 1}}", "[{}, [], [[]], {\"\": 0}]",
    "{\"a\": 1, \"b\": [true, false, null]}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) root = NULL;

      g_test_message ("%s", texts[i]);
      g_assert_true (prism_json_check_text (texts[i], strlen (texts[i]), NULL, &error));
      g_assert_no_error (error);
      root = prism_json_parse (texts[i], strlen (texts[i]), NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (root);
    }
  /* The escapes read as the characters meant. */
  {
    const char *text = "[\"\\ud83d\\ude00\\u00e9\", 9223372036854775807, -0.5]";
    g_autoptr(JsonNode) root = prism_json_parse (text, strlen (text), NULL, NULL);
    JsonArray *a = json_node_get_array (root);

    g_assert_cmpstr (json_array_get_string_element (a, 0), ==, "😀é");
    g_assert_cmpint (json_array_get_int_element (a, 1), ==, G_MAXINT64);
    g_assert_cmpfloat (json_array_get_double_element (a, 2), ==, -0.5);
  }
}

typedef struct
{
  const char *text;
  gsize len;                 /* 0: strlen */
  int code;
  const char *message;
} Bad;

static void
test_rejected (void)
{
  static const Bad cases[] = {
    { "", 0, PRISM_ERROR_PARSE, "the document is empty" },
    { " \n\t", 0, PRISM_ERROR_PARSE, "the document is empty" },
    { "{} {}", 0, PRISM_ERROR_PARSE, "column 4: more text after the document" },
    { "[1]\n[2]", 0, PRISM_ERROR_PARSE, "line 2, column 1: more text after the document" },
    { "1 2", 0, PRISM_ERROR_PARSE, "more text after the document" },
    { "{'a': 1}", 0, PRISM_ERROR_PARSE, "a single-quoted string" },
    { "['a']", 0, PRISM_ERROR_PARSE, "a single-quoted string" },
    { "[1 /* one */]", 0, PRISM_ERROR_PARSE, "a comment; JSON has none" },
    { "// x\n1", 0, PRISM_ERROR_PARSE, "line 1, column 1: a comment" },
    { "[0x10]", 0, PRISM_ERROR_PARSE, "a hexadecimal number" },
    { "[0x10000000000000001]", 0, PRISM_ERROR_PARSE, "a hexadecimal number" },
    { "[01]", 0, PRISM_ERROR_PARSE, "a number with a leading zero" },
    { "[-01]", 0, PRISM_ERROR_PARSE, "a number with a leading zero" },
    { "[1,]", 0, PRISM_ERROR_PARSE, "a trailing comma before “]”" },
    { "{\"a\": 1,}", 0, PRISM_ERROR_PARSE, "a trailing comma before “}”" },
    { "[,1]", 0, PRISM_ERROR_PARSE, "expected a value, got “,”" },
    { "[1,,2]", 0, PRISM_ERROR_PARSE, "expected a value, got “,”" },
    { "{\"a\" 1}", 0, PRISM_ERROR_PARSE, "expected “:” after the member name" },
    { "{1: 2}", 0, PRISM_ERROR_PARSE, "expected a member name" },
    { "{\"a\": 1 \"b\": 2}", 0, PRISM_ERROR_PARSE, "expected “,” or “}”, got “\"”" },
    { "[1 2]", 0, PRISM_ERROR_PARSE, "expected “,” or “]”, got “2”" },
    { "[1}", 0, PRISM_ERROR_PARSE, "expected “,” or “]”, got “}”" },
    { "[", 0, PRISM_ERROR_PARSE, "the document ends inside an array" },
    { "{\"a\": [1, {", 0, PRISM_ERROR_PARSE, "the document ends inside an object" },
    { "]", 0, PRISM_ERROR_PARSE, "expected a value, got “]”" },
    { "\"abc", 0, PRISM_ERROR_PARSE, "a string that is never closed" },
    { "\"a\nb\"", 0, PRISM_ERROR_PARSE, "a line break (0x0A) in a string" },
    { "\"a\tb\"", 0, PRISM_ERROR_PARSE, "a tab (0x09) in a string" },
    { "\"\x1b[2J\"", 0, PRISM_ERROR_PARSE, "a control character (0x1B) in a string" },
    { "\"a\0b\"", 5, PRISM_ERROR_PARSE, "a NUL byte (0x00) in a string" },
    { "[1]\0", 4, PRISM_ERROR_PARSE, "more text after the document" },
    { "\"\\u0000\"", 0, PRISM_ERROR_PARSE, "“\\u0000” (NUL) in a string is not accepted" },
    { "{\"a\\u0000b\": 1}", 0, PRISM_ERROR_PARSE, "“\\u0000” (NUL)" },
    { "\"\\ud800\"", 0, PRISM_ERROR_PARSE, "first half of a surrogate pair without its second" },
    { "\"\\ud800\\u0041\"", 0, PRISM_ERROR_PARSE, "first half of a surrogate pair" },
    { "\"\\udc00\"", 0, PRISM_ERROR_PARSE, "second half of a surrogate pair without its first" },
    { "\"\\u12\"", 0, PRISM_ERROR_PARSE, "four hex digits" },
    { "\"\\x41\"", 0, PRISM_ERROR_PARSE, "the escape “\\x” is not JSON" },
    { "\"\\'\"", 0, PRISM_ERROR_PARSE, "the escape “\\'” is not JSON" },
    { "\"\xff\"", 0, PRISM_ERROR_PARSE, "not valid UTF-8 (the byte 0xFF)" },
    { "\"\xc0\xaf\"", 0, PRISM_ERROR_PARSE, "not valid UTF-8 (the byte 0xC0)" },
    { "\"\xe0\x80\xaf\"", 0, PRISM_ERROR_PARSE, "not valid UTF-8 (the byte 0xE0)" },
    { "\"\xed\xa0\x80\"", 0, PRISM_ERROR_PARSE, "not valid UTF-8 (the byte 0xED)" },
    { "\"\xf4\x90\x80\x80\"", 0, PRISM_ERROR_PARSE, "not valid UTF-8 (the byte 0xF4)" },
    { "\"\xe2\x82\"", 0, PRISM_ERROR_PARSE, "not valid UTF-8 (the byte 0xE2)" },
    { "\xef\xbb\xbf{}", 0, PRISM_ERROR_PARSE, "a byte order mark" },
    { "[\xc3\xa9]", 0, PRISM_ERROR_PARSE, "expected a value, got the byte 0xC3" },
    { "[18446744073709551617]", 0, PRISM_ERROR_PARSE, "the integer 18446744073709551617 is out of range" },
    { "[9223372036854775808]", 0, PRISM_ERROR_PARSE, "out of range (integers must fit in 64 bits)" },
    { "[-9223372036854775809]", 0, PRISM_ERROR_PARSE, "out of range" },
    { "[1e400]", 0, PRISM_ERROR_PARSE, "the number 1e400 is out of range" },
    { "[-1e400]", 0, PRISM_ERROR_PARSE, "out of range" },
    { "[NaN]", 0, PRISM_ERROR_PARSE, "got “NaN” (not a JSON value)" },
    { "[Infinity]", 0, PRISM_ERROR_PARSE, "got “Infinity”" },
    { "[-Infinity]", 0, PRISM_ERROR_PARSE, "a “-” that no digit follows" },
    { "[True]", 0, PRISM_ERROR_PARSE, "got “True”" },
    { "[nul]", 0, PRISM_ERROR_PARSE, "got “nul”" },
    { "[truex]", 0, PRISM_ERROR_PARSE, "got “truex”" },
    { "[undefined]", 0, PRISM_ERROR_PARSE, "got “undefined”" },
    { "[+1]", 0, PRISM_ERROR_PARSE, "expected a value, got “+”" },
    { "[.5]", 0, PRISM_ERROR_PARSE, "expected a value, got “.”" },
    { "[1.]", 0, PRISM_ERROR_PARSE, "a number whose “.” no digit follows" },
    { "[1e]", 0, PRISM_ERROR_PARSE, "a number whose exponent has no digits" },
    { "[1e+]", 0, PRISM_ERROR_PARSE, "a number whose exponent has no digits" },
    { "[1.5.2]", 0, PRISM_ERROR_PARSE, "expected “,” or “]”, got “.”" },
    { "{\"a\": 1, \"a\": 2}", 0, PRISM_ERROR_PARSE, "the member “a” appears twice in one object" },
    { "{\"a\": 1, \"\\u0061\": 2}", 0, PRISM_ERROR_PARSE, "the member “a” appears twice" },
    { "\v1", 0, PRISM_ERROR_PARSE, "expected a value, got the byte 0x0B" },
    { "\f1", 0, PRISM_ERROR_PARSE, "expected a value, got the byte 0x0C" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      gsize len = cases[i].len ? cases[i].len : strlen (cases[i].text);

      g_test_message ("case %u: %s", i, cases[i].message);
      g_assert_false (prism_json_check_text (cases[i].text, len, NULL, &error));
      g_assert_error (error, PRISM_ERROR, cases[i].code);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("case %u: message “%s” lacks “%s”", i, error->message, cases[i].message);
      g_clear_error (&error);
      g_assert_null (prism_json_parse (cases[i].text, len, NULL, &error));
      g_assert_error (error, PRISM_ERROR, cases[i].code);
    }
  /* Members of different objects may share a name. */
  g_assert_true (prism_json_check_text ("[{\"a\": 1}, {\"a\": 2}]", 20, NULL, NULL));
}

/* Nesting is bounded by the limit, never by the C stack; the time by the size. */
static void
test_depth (void)
{
  const gsize deep = 100000;
  g_autofree char *nested = g_malloc (2 * deep);
  PrismJsonLimits limits = { 1 << 20, 3 };
  g_autoptr(GError) error = NULL;

  memset (nested, '[', deep);
  memset (nested + deep, ']', deep);
  g_assert_false (prism_json_check_text (nested, 2 * deep, NULL, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "line 1, column 65: nested deeper than 64 levels"));
  g_clear_error (&error);
  /* Exactly at the limit: accepted. */
  g_assert_true (prism_json_check_text (nested + deep - 64, 128, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (prism_json_check_text ("[{\"a\": []}]", 11, &limits, &error));
  g_assert_false (prism_json_check_text ("[{\"a\": [[]]}]", 13, &limits, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_clear_error (&error);
  /* Values: json-glib's tree is about 80 bytes each. */
  limits.max_values = 3;
  g_assert_true (prism_json_check_text ("[1, 2]", 6, &limits, &error));
  g_assert_false (prism_json_check_text ("[1, [2]]", 8, &limits, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "more than 3 values in the document"));
  g_clear_error (&error);
  /* Size: refused before a byte is looked at. */
  limits.max_size = 4;
  limits.max_depth = 64;
  g_assert_false (prism_json_check_text ("[1, 2]", 6, &limits, &error));
  g_assert_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "at most 4"));
}

static char *
write_file (const char *name, const char *data, gssize len)
{
  char *path = g_build_filename (tmpdir, name, NULL);

  g_assert_true (g_file_set_contents (path, data, len, NULL));
  return path;
}

static void
expect_read_error (const char *path, gsize max, int code, const char *message)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len = 99;

  data = prism_json_read_file (path, max, &len, &error);
  g_assert_null (data);
  g_assert_cmpuint (len, ==, 0);
  g_assert_error (error, PRISM_ERROR, code);
  if (strstr (error->message, message) == NULL || strstr (error->message, path) == NULL)
    g_error ("message “%s” lacks “%s” or the path", error->message, message);
  /* (A FIFO read would block and /dev/zero never ends: the test would hang.) */
}

/* Only regular files of bounded size, refused by kind before reading. */
static void
test_read_file (void)
{
  g_autofree char *ok = write_file ("ok.json", "[1, 2]", -1);
  g_autofree char *big = write_file ("big.json", "[1, 2, 3, 4, 5]", -1);
  g_autofree char *empty = write_file ("empty.json", "", 0);
  g_autofree char *fifo = g_build_filename (tmpdir, "fifo.json", NULL);
  g_autofree char *folder = g_build_filename (tmpdir, "folder.json", NULL);
  g_autofree char *sock_path = g_build_filename (tmpdir, "socket.json", NULL);
  g_autofree char *missing = g_build_filename (tmpdir, "missing.json", NULL);
  g_autofree char *link = g_build_filename (tmpdir, "zero-link.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  g_autoptr(JsonNode) root = NULL;
  gsize len = 0;

  data = prism_json_read_file (ok, 6, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (data, ==, "[1, 2]");
  g_assert_cmpuint (len, ==, 6);
  g_clear_pointer (&data, g_free);
  data = prism_json_read_file (empty, 6, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (len, ==, 0);

  expect_read_error (big, 10, PRISM_ERROR_LIMIT, "has 15 bytes; at most 10 are read");
  expect_read_error (missing, 10, PRISM_ERROR_FAILED, "No such file");
  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  expect_read_error (folder, 1 << 20, PRISM_ERROR_FAILED, "is a folder, not a regular file");
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  expect_read_error (fifo, 1 << 20, PRISM_ERROR_FAILED, "is a FIFO (named pipe), not a regular file");
  if (g_file_test ("/dev/zero", G_FILE_TEST_EXISTS))
    {
      expect_read_error ("/dev/zero", 1 << 20, PRISM_ERROR_FAILED, "is a character device, not a regular file");
      g_assert_cmpint (symlink ("/dev/zero", link), ==, 0);
      expect_read_error (link, 1 << 20, PRISM_ERROR_FAILED, "is a character device");
    }
  {
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int fd = socket (AF_UNIX, SOCK_STREAM, 0);

    g_assert_cmpint (fd, >=, 0);
    g_strlcpy (addr.sun_path, sock_path, sizeof addr.sun_path);
    if (strlen (sock_path) < sizeof addr.sun_path && bind (fd, (struct sockaddr *) &addr, sizeof addr) == 0)
      expect_read_error (sock_path, 1 << 20, PRISM_ERROR_FAILED, "is a socket, not a regular file");
    close (fd);
  }

  /* prism_json_load_file() names the file in every message. */
  root = prism_json_load_file (big, NULL, &error);
  g_assert_nonnull (root);
  g_assert_no_error (error);
  g_clear_pointer (&root, json_node_unref);
  {
    g_autofree char *bad = write_file ("two.json", "{}\n{}", -1);
    root = prism_json_load_file (bad, NULL, &error);
    g_assert_null (root);
    g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
    g_assert_true (g_str_has_prefix (error->message, bad));
    g_assert_nonnull (strstr (error->message, "line 2, column 1: more text after the document"));
    g_unlink (bad);
  }
  g_unlink (ok);
  g_unlink (big);
  g_unlink (empty);
  g_unlink (fifo);
  g_unlink (link);
  g_unlink (sock_path);
  g_rmdir (folder);
}

/* Parts of checked text: members of the root object, elements of an array. */
static void
test_spans (void)
{
  const char *text = " { \"a\" : [1, {\"x\": \"]\\\"\"}, [2]] , \"b\\u0063\": \"s\", \"n\": -1.5e3 } ";
  gsize len = strlen (text);
  g_autoptr(GArray) elements = NULL;
  PrismJsonSpan span;

  g_assert_true (prism_json_check_text (text, len, NULL, NULL));
  g_assert_true (prism_json_find_member (text, len, "a", &span));
  g_assert_cmpint (strncmp (text + span.start, "[1, {\"x\": \"]\\\"\"}, [2]]", span.end - span.start), ==, 0);
  g_assert_cmpuint (span.end - span.start, ==, strlen ("[1, {\"x\": \"]\\\"\"}, [2]]"));
  elements = prism_json_array_elements (text, &span, 10);
  g_assert_cmpuint (elements->len, ==, 3);
  g_assert_cmpint (strncmp (text + g_array_index (elements, PrismJsonSpan, 1).start, "{\"x\": \"]\\\"\"}", 12), ==, 0);
  g_assert_cmpuint (g_array_index (elements, PrismJsonSpan, 2).end - g_array_index (elements, PrismJsonSpan, 2).start,
                    ==, 3);
  g_clear_pointer (&elements, g_array_unref);
  /* At most max + 1 elements. */
  elements = prism_json_array_elements (text, &span, 1);
  g_assert_cmpuint (elements->len, ==, 2);
  g_clear_pointer (&elements, g_array_unref);
  /* Member names are decoded. */
  g_assert_true (prism_json_find_member (text, len, "bc", &span));
  g_assert_cmpint (strncmp (text + span.start, "\"s\"", 3), ==, 0);
  g_assert_true (prism_json_find_member (text, len, "n", &span));
  g_assert_cmpuint (span.end - span.start, ==, 6);
  g_assert_false (prism_json_find_member (text, len, "x", &span));
  g_assert_null (prism_json_array_elements (text, &span, 10));
  g_assert_false (prism_json_find_member ("[1]", 3, "a", &span));
}

/* prism-gpu files (GPU tables, calibrations) go through the same checker
 * and reader: json-glib alone took a second document, comments and hex. */
static void
test_gpu_files (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", "gpus", "h100.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *fifo = g_build_filename (tmpdir, "gpu-fifo.json", NULL);
  g_autoptr(PrismGpuTarget) ok = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  ok = prism_gpu_target_load_data (text, (gssize) len, "h100.json", &error);
  g_assert_no_error (error);
  g_assert_nonnull (ok);
  {
    g_autofree char *twice = g_strconcat (text, text, NULL);
    g_autofree char *comment = g_strconcat ("// calibrated\n", text, NULL);
    const char *bad[] = { twice, comment };
    const char *messages[] = { "more text after the document", "a comment; JSON has none" };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autoptr(PrismGpuTarget) t = prism_gpu_target_load_data (bad[i], -1, "bad.json", &error);
        g_assert_null (t);
        g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
        g_assert_nonnull (strstr (error->message, messages[i]));
        g_clear_error (&error);
      }
  }
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_null (prism_gpu_target_load_file (fifo, &error));
  g_assert_nonnull (strstr (error->message, "is a FIFO (named pipe), not a regular file"));
  g_unlink (fifo);
}

/* @text with the first @from replaced by @to. */
static char *
replace_once (const char *text, const char *from, const char *to)
{
  const char *at = strstr (text, from);

  g_assert_nonnull (at);
  return g_strdup_printf ("%.*s%s%s", (int) (at - text), text, to, at + strlen (from));
}

/* The GPU reader is as strict as the others: names that reach the terminal
 * are printable and bounded, every member is known, and the thread limits
 * are those of real GPUs (before: all of these were accepted, and bench and
 * search printed the display name's escape sequences raw). */
static void
test_gpu_files_strict (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", "gpus", "h100.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *long_name = g_strnfill (900000, 'x');
  g_autofree char *long_member = g_strdup_printf ("\"display_name\": \"%s\"", long_name);
  const struct
  {
    const char *from, *to, *message;
  } cases[] = {
    { "\"display_name\": \"NVIDIA", "\"display_name\": \"\\u001b]0;pwned\\u0007NVIDIA",
      "display_name: holds the control character U+001B" },
    { "\"display_name\": \"NVIDIA H100 SXM5 80 GB\"", long_member, "display_name: longer than 256 bytes" },
    { "\"name\": \"h100\"", "\"name\": \"h100\\u0085\"", "name: holds the control character U+0085" },
    { "\"iteration_us\"", "\"iteration_uss\"", "“iteration_uss” is not a member of calibration" },
    { "\"sm_count\"", "\"sm_counts\": 1, \"sm_count\"", "“sm_counts” is not a member of datasheet" },
    { "\"match\"", "\"matches\": [], \"match\"", "“matches” is not a member of the file" },
    { "\"kib_per_sm\": 1,", "\"kib_per_sm\": 1, \"gbps\": 2,", "“gbps” is not a member of calibration.dram_gbs_by_inflight[]" },
    { "\"max_threads_per_block\": 1024", "\"max_threads_per_block\": 33",
      "datasheet.max_threads_per_block: not a multiple of 32" },
    { "\"max_threads_per_block\": 1024", "\"max_threads_per_block\": 65536",
      "datasheet.max_threads_per_block: 65536 is outside [32, 1024]" },
  };

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *bad = replace_once (text, cases[i].from, cases[i].to);
      g_autoptr(GError) error = NULL;
      g_autoptr(PrismGpuTarget) t = prism_gpu_target_load_data (bad, -1, "bad.json", &error);

      g_test_message ("case %u: %s", i, cases[i].message);
      g_assert_null (t);
      g_assert_error (error, PRISM_ERROR, PRISM_ERROR_PARSE);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("case %u: “%.200s” lacks “%s”", i, error->message, cases[i].message);
    }
}

/* What the project writes, its strict reader reads: json-glib 1.6 writes
 * the doubles 1e-10 and 1e22 as "1e-10.0" and "1e+22.0", which are not
 * JSON; prism_json_to_text() writes "1e-10" and "1e+22", and leaves strings
 * alone. */
static void
test_writer_doubles (void)
{
  static const double values[] = { 1e-10, 1e22, -3e-300, 100.0, 0.5, 1.5e-10 };
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  JsonArray *array;
  gsize length;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "values");
  json_builder_begin_array (b);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    json_builder_add_double_value (b, values[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "text");
  json_builder_add_string_value (b, "1e5.0 stays");
  json_builder_end_object (b);
  root = json_builder_get_root (b);

  for (int pretty = 0; pretty <= 1; pretty++)
    {
      g_clear_pointer (&text, g_free);
      g_clear_pointer (&again, json_node_unref);
      text = prism_json_to_text (root, pretty, &length);
      g_test_message ("%s", text);
      g_assert_cmpuint (length, ==, strlen (text));
      g_assert_null (strstr (text, "e-10.0"));
      g_assert_null (strstr (text, "e+22.0"));
      g_assert_nonnull (strstr (text, "100.0"));
      g_assert_nonnull (strstr (text, "\"1e5.0 stays\""));
      again = prism_json_parse (text, length, NULL, &error);
      g_assert_no_error (error);
      array = json_object_get_array_member (json_node_get_object (again), "values");
      for (guint i = 0; i < G_N_ELEMENTS (values); i++)
        g_assert_cmpfloat (json_array_get_double_element (array, i), ==, values[i]);
    }
}

int
main (int argc, char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("prism-json-reader-XXXXXX", NULL);
  g_test_add_func ("/json-reader/accepted", test_accepted);
  g_test_add_func ("/json-reader/rejected", test_rejected);
  g_test_add_func ("/json-reader/depth", test_depth);
  g_test_add_func ("/json-reader/read-file", test_read_file);
  g_test_add_func ("/json-reader/spans", test_spans);
  g_test_add_func ("/json-reader/gpu-files", test_gpu_files);
  g_test_add_func ("/json-reader/gpu-files-strict", test_gpu_files_strict);
  g_test_add_func ("/json-reader/writer-doubles", test_writer_doubles);
  status = g_test_run ();
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return status;
}
