/* prism-line-diff.c — a unified line diff of two texts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "prism-line-diff"

#include "config.h"

#include "prism-line-diff.h"

/* Two generated .cu files are a few hundred to a few thousand lines and
 * share most of them (the host code, the helpers): the common start and
 * end are set aside and the longest common subsequence of what is left is
 * found by dynamic programming, bounded so that it never takes more than
 * 64 MiB. */
#define MAX_CELLS (16u * 1024 * 1024)

typedef struct
{
  PrismDiffLineKind kind;
  guint a, b;                /* line numbers, from 0, in each text */
} Edit;

static void
diff_line_clear (gpointer data)
{
  g_free (((PrismDiffLine *) data)->text);
}

static char **
split_lines (const char *text,
             guint      *n)
{
  char **lines = g_strsplit (text ? text : "", "\n", -1);

  *n = g_strv_length (lines);
  /* A final newline ends the last line; it does not start one. */
  if (*n > 0 && lines[*n - 1][0] == '\0')
    {
      g_free (lines[*n - 1]);
      lines[--*n] = NULL;
    }
  return lines;
}

static void
push (GArray *edits, PrismDiffLineKind kind, guint a, guint b)
{
  Edit e = { kind, a, b };

  g_array_append_val (edits, e);
}

/* The edit script of lines [a0, a1) against [b0, b1). */
static void
diff_middle (char  **la, guint a0, guint a1,
             char  **lb, guint b0, guint b1,
             GArray *edits)
{
  gsize n = a1 - a0, m = b1 - b0;
  g_autofree guint32 *lcs = NULL;
  gsize i = 0, j = 0;

  if (n == 0 || m == 0 || (n + 1) * (m + 1) > MAX_CELLS)
    {
      for (guint k = a0; k < a1; k++)
        push (edits, PRISM_DIFF_LINE_REMOVED, k, b0);
      for (guint k = b0; k < b1; k++)
        push (edits, PRISM_DIFF_LINE_ADDED, a1, k);
      return;
    }
  /* lcs[i][j]: the longest common subsequence of a[i..] and b[j..]. */
  lcs = g_new0 (guint32, (n + 1) * (m + 1));
#define L(i, j) lcs[(i) * (m + 1) + (j)]
  for (gsize x = n; x-- > 0;)
    for (gsize y = m; y-- > 0;)
      L (x, y) = g_str_equal (la[a0 + x], lb[b0 + y]) ? L (x + 1, y + 1) + 1
                                                       : MAX (L (x + 1, y), L (x, y + 1));
  while (i < n || j < m)
    {
      if (i < n && j < m && g_str_equal (la[a0 + i], lb[b0 + j]))
        {
          push (edits, PRISM_DIFF_LINE_SAME, a0 + i, b0 + j);
          i++, j++;
        }
      /* Removed lines before added ones, as diff -u writes them. */
      else if (i < n && (j == m || L (i + 1, j) >= L (i, j + 1)))
        {
          push (edits, PRISM_DIFF_LINE_REMOVED, a0 + i, b0 + j);
          i++;
        }
      else
        {
          push (edits, PRISM_DIFF_LINE_ADDED, a0 + i, b0 + j);
          j++;
        }
    }
#undef L
}

static void
append_line (GArray *out, PrismDiffLineKind kind, char *text)
{
  PrismDiffLine line = { kind, text };

  g_array_append_val (out, line);
}

/* "@@ -a,n +b,m @@" for the edits [first, last]. */
static char *
hunk_header (const GArray *edits, guint first, guint last)
{
  const Edit *start = &g_array_index (edits, Edit, first);
  guint n_a = 0, n_b = 0;

  for (guint k = first; k <= last; k++)
    {
      PrismDiffLineKind kind = g_array_index (edits, Edit, k).kind;

      n_a += kind != PRISM_DIFF_LINE_ADDED;
      n_b += kind != PRISM_DIFF_LINE_REMOVED;
    }
  return g_strdup_printf ("@@ -%u,%u +%u,%u @@", start->a + (n_a > 0), n_a, start->b + (n_b > 0), n_b);
}

GArray *
prism_line_diff_new (const char *a,
                     const char *b,
                     guint       context,
                     guint      *n_removed,
                     guint      *n_added)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (PrismDiffLine));
  g_autoptr(GArray) edits = g_array_new (FALSE, FALSE, sizeof (Edit));
  g_auto(GStrv) la = NULL;
  g_auto(GStrv) lb = NULL;
  guint na, nb, head = 0, tail = 0, removed = 0, added = 0;
  guint k = 0;

  g_array_set_clear_func (out, diff_line_clear);
  la = split_lines (a, &na);
  lb = split_lines (b, &nb);
  while (head < na && head < nb && g_str_equal (la[head], lb[head]))
    head++;
  while (tail < na - head && tail < nb - head && g_str_equal (la[na - 1 - tail], lb[nb - 1 - tail]))
    tail++;

  for (guint i = 0; i < head; i++)
    push (edits, PRISM_DIFF_LINE_SAME, i, i);
  diff_middle (la, head, na - tail, lb, head, nb - tail, edits);
  for (guint i = 0; i < tail; i++)
    push (edits, PRISM_DIFF_LINE_SAME, na - tail + i, nb - tail + i);

  /* Hunks: each change with @context lines either side, merged when
   * their context meets. */
  while (k < edits->len)
    {
      guint change, first, last, next;

      while (k < edits->len && g_array_index (edits, Edit, k).kind == PRISM_DIFF_LINE_SAME)
        k++;
      if (k == edits->len)
        break;
      change = k;
      first = change > context ? change - context : 0;
      last = change;
      for (next = change; next < edits->len; next++)
        {
          if (g_array_index (edits, Edit, next).kind != PRISM_DIFF_LINE_SAME)
            last = next;
          else if (context != G_MAXUINT && next - last > 2 * context)
            break;
        }
      last = context == G_MAXUINT ? edits->len - 1 : MIN (last + context, edits->len - 1);
      append_line (out, PRISM_DIFF_LINE_HUNK, hunk_header (edits, first, last));
      for (guint e = first; e <= last; e++)
        {
          const Edit *edit = &g_array_index (edits, Edit, e);
          const char *text = edit->kind == PRISM_DIFF_LINE_ADDED ? lb[edit->b] : la[edit->a];

          removed += edit->kind == PRISM_DIFF_LINE_REMOVED;
          added += edit->kind == PRISM_DIFF_LINE_ADDED;
          append_line (out, edit->kind, g_strdup (text));
        }
      k = last + 1;
    }
  if (n_removed != NULL)
    *n_removed = removed;
  if (n_added != NULL)
    *n_added = added;
  return out;
}
