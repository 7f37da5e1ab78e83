/* prism-line-diff.h — a unified line diff of two texts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  PRISM_DIFF_LINE_SAME,      /* in both texts (context) */
  PRISM_DIFF_LINE_REMOVED,   /* only in the first */
  PRISM_DIFF_LINE_ADDED,     /* only in the second */
  PRISM_DIFF_LINE_HUNK,      /* "@@ -12,7 +12,9 @@": where the next lines are */
} PrismDiffLineKind;

typedef struct
{
  PrismDiffLineKind kind;
  char *text;                /* the line without its newline (owned) */
} PrismDiffLine;

/**
 * prism_line_diff_new:
 * @a: the first text
 * @b: the second text
 * @context: lines of context kept around each change; G_MAXUINT keeps
 *   every line (then there is one hunk, or none when nothing differs)
 * @n_removed: (out) (optional): lines only in @a
 * @n_added: (out) (optional): lines only in @b
 *
 * The lines of @a and @b as `diff -u` pairs them: a longest common
 * subsequence of lines (after their common start and end are set aside;
 * a middle of more than 16 million line pairs is taken as replaced whole).
 *
 * Returns: (transfer full) (element-type PrismDiffLine): the hunks' lines,
 *   empty when the texts are the same
 */
GArray *prism_line_diff_new (const char *a,
                             const char *b,
                             guint       context,
                             guint      *n_removed,
                             guint      *n_added);

G_END_DECLS
