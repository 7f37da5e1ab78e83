/* prism-candidate-column.c — the candidates table's columns: what each
 * shows, its title and the property it sorts by; and the filter's terms,
 * which look at the same cells
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "prism-candidate-column.h"
#include "prism-format.h"

char *
prism_candidate_column_text (PrismCandidateRow    *row,
                             PrismCandidateColumn  column)
{
  switch (column)
    {
    case PRISM_CANDIDATE_COLUMN_ID:
      /* A graph from elsewhere is named, not numbered: "Mirage graph 2". */
      if (prism_candidate_row_is_external (row))
        return g_strdup (prism_candidate_row_get_label (row));
      return g_strdup_printf ("%u", prism_candidate_row_get_id (row));
    case PRISM_CANDIDATE_COLUMN_SPEEDUP:
      return prism_format_speedup (prism_candidate_row_get_speedup (row));
    case PRISM_CANDIDATE_COLUMN_TIME:
      return prism_format_time_us (prism_candidate_row_get_time_us (row));
    case PRISM_CANDIDATE_COLUMN_MEASURED:
      /* Empty until the GPU timed it (the best few, after the search). */
      if (!prism_candidate_row_get_measured (row))
        return g_strdup ("");
      {
        g_autofree char *time = prism_format_time_us (prism_candidate_row_get_measured_us (row));
        g_autofree char *off = prism_format_prediction_error (prism_candidate_row_get_predicted_us (row),
                                                              prism_candidate_row_get_measured_us (row));

        /* Translators: a measured time, then how far it is from the prediction */
        return g_strdup_printf (_("%s (%s)"), time, off);
      }
    case PRISM_CANDIDATE_COLUMN_KERNELS:
      return g_strdup_printf ("%u", prism_candidate_row_get_kernels (row));
    case PRISM_CANDIDATE_COLUMN_SMEM:
      {
        guint64 bytes;

        if (!prism_candidate_row_get_smem_bytes (row, &bytes))
          return g_strdup ("?");
        /* Candidates without a custom kernel use none of their own. */
        return bytes == 0 ? g_strdup ("—") : g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
      }
    case PRISM_CANDIDATE_COLUMN_VERIFICATION:
      return g_strdup (prism_candidate_row_get_verification (row));
    case PRISM_CANDIDATE_COLUMN_PARAMS:
      /* A candidate whose grids and loops all have size 1 has no sizes to choose. */
      return g_strdup (*prism_candidate_row_get_params (row) ? prism_candidate_row_get_params (row) : "—");
    case PRISM_CANDIDATE_COLUMN_FOUND:
      /* Not found by this search: opened from a file. */
      if (prism_candidate_row_is_external (row))
        return g_strdup ("—");
      return prism_format_seconds (prism_candidate_row_get_found_at (row));
    case PRISM_CANDIDATE_N_COLUMNS:
    default:
      g_assert_not_reached ();
    }
}

const char *
prism_candidate_column_title (PrismCandidateColumn column)
{
  switch (column)
    {
    case PRISM_CANDIDATE_COLUMN_ID:           return C_("candidates column", "#");
    case PRISM_CANDIDATE_COLUMN_SPEEDUP:      return C_("candidates column", "Speedup");
    case PRISM_CANDIDATE_COLUMN_TIME:         return C_("candidates column", "Time");
    case PRISM_CANDIDATE_COLUMN_MEASURED:     return C_("candidates column", "Measured");
    case PRISM_CANDIDATE_COLUMN_KERNELS:      return C_("candidates column", "Launches");
    /* Not "Shared": the Kernel page's Shared is each launch's dynamic
     * shared memory, pipeline stages and padding included — another figure
     * (21.3 KiB here beside 41.1 KiB there for one candidate). */
    case PRISM_CANDIDATE_COLUMN_SMEM:         return C_("candidates column", "Tiles");
    case PRISM_CANDIDATE_COLUMN_VERIFICATION: return C_("candidates column", "Verification");
    case PRISM_CANDIDATE_COLUMN_PARAMS:       return C_("candidates column", "Sizes");
    case PRISM_CANDIDATE_COLUMN_FOUND:        return C_("candidates column", "Found After");
    case PRISM_CANDIDATE_N_COLUMNS:
    default:
      g_assert_not_reached ();
    }
}

/* The property a column sorts by; text columns sort by their text. */
const char *
prism_candidate_column_property (PrismCandidateColumn column)
{
  switch (column)
    {
    case PRISM_CANDIDATE_COLUMN_ID:           return "id";
    case PRISM_CANDIDATE_COLUMN_SPEEDUP:      return "speedup";
    case PRISM_CANDIDATE_COLUMN_TIME:         return "time-us";
    case PRISM_CANDIDATE_COLUMN_MEASURED:     return "measured-us";
    case PRISM_CANDIDATE_COLUMN_KERNELS:      return "kernels";
    case PRISM_CANDIDATE_COLUMN_SMEM:         return "smem-bytes";
    case PRISM_CANDIDATE_COLUMN_VERIFICATION: return "method";
    case PRISM_CANDIDATE_COLUMN_PARAMS:       return "params";
    case PRISM_CANDIDATE_COLUMN_FOUND:        return "found-at";
    case PRISM_CANDIDATE_N_COLUMNS:
    default:
      g_assert_not_reached ();
    }
}

/* One term of the filter against a row: "launches=1", "speedup>=2",
 * "time<5" (µs) compare a figure; any other text is looked for, ignoring
 * case, in the row's cells and in the steps that built it (the ops and
 * kernels of its structure). */
gboolean
prism_candidate_filter_term_matches (PrismCandidateRow *row,
                                     const char        *term)
{
  static const char * const fields[] = { "launches", "speedup", "time" };
  const char *explanation;

  for (guint f = 0; f < G_N_ELEMENTS (fields); f++)
    {
      gsize len = strlen (fields[f]);
      const char *op = term + len;
      char *end = NULL;
      double want, have;
      int cmp;

      if (g_ascii_strncasecmp (term, fields[f], len) != 0 || strchr ("<>=", *op) == NULL || *op == '\0')
        continue;
      cmp = op[0] == '<' ? (op[1] == '=' ? -2 : -1) : op[0] == '>' ? (op[1] == '=' ? 2 : 1) : 0;
      want = g_ascii_strtod (op + (op[1] == '=' ? 2 : 1), &end);
      if (end == NULL || *end != '\0' || end == op + 1)
        break;   /* not a number: looked for as text */
      have = f == 0 ? prism_candidate_row_get_kernels (row)
             : f == 1 ? prism_candidate_row_get_speedup (row) : prism_candidate_row_get_predicted_us (row);
      switch (cmp)
        {
        case -2: return have <= want;
        case -1: return have < want;
        case 1:  return have > want;
        case 2:  return have >= want;
        default: return fabs (have - want) <= 1e-9 * MAX (1, fabs (want));
        }
    }

  for (PrismCandidateColumn c = 0; c < PRISM_CANDIDATE_N_COLUMNS; c++)
    {
      g_autofree char *text = prism_candidate_column_text (row, c);
      g_autofree char *folded = text ? g_utf8_casefold (text, -1) : NULL;

      if (folded != NULL && strstr (folded, term) != NULL)
        return TRUE;
    }
  explanation = prism_candidate_row_get_explanation (row);
  if (explanation != NULL)
    {
      g_autofree char *folded = g_utf8_casefold (explanation, -1);

      if (strstr (folded, term) != NULL)
        return TRUE;
    }
  return FALSE;
}

