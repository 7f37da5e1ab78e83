/* prism-map-instantiate.c — from an sGraph to candidates with concrete maps
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "prism-error.h"
#include "prism-map-instantiate.h"

#define MAX_NODES (PRISM_MAX_OP_INPUTS * PRISM_MAX_DIMS)

void
prism_map_stats_add (PrismMapStats *into, const PrismMapStats *from)
{
  into->assignments += from->assignments;
  into->no_split += from->no_split;
  into->no_omap += from->no_omap;
  into->combinations += from->combinations;
  into->truncated += from->truncated;
  into->shape += from->shape;
  into->output_shape += from->output_shape;
  into->duplicates += from->duplicates;
  into->unsized += from->unsized;
  into->dominated += from->dominated;
  into->candidates += from->candidates;
}

void
prism_map_candidate_free (PrismMapCandidate *candidate)
{
  if (candidate == NULL)
    return;
  prism_graph_unref (candidate->graph);
  g_free (candidate->key);
  g_free (candidate);
}

/* ------------------------------------------------------------------------ */
/* Classes of input dims */

typedef struct
{
  guint n_members;
  guint members[MAX_NODES];   /* node = input * PRISM_MAX_DIMS + dim */
  gint64 size;
  guint8 no_split;
  gboolean twice_in_one_input; /* two dims of one input: cannot be partitioned */
} DimClass;

typedef struct
{
  const PrismKernelConstraints *c;
  guint max_axes;
  DimClass classes[MAX_NODES];
  guint n_classes;
  int class_of[MAX_NODES];
  /* assignment */
  int axis[MAX_NODES];
  gboolean loop[MAX_NODES];
  guint axes_used_by_input[PRISM_MAX_OP_INPUTS]; /* bit mask */
  gboolean input_has_loop[PRISM_MAX_OP_INPUTS];
  GArray *out;
  PrismMapStats *stats;
} Enumerator;

static guint
uf_find (guint *parent, guint x)
{
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

static void
build_classes (Enumerator *e)
{
  const PrismKernelConstraints *c = e->c;
  guint parent[MAX_NODES];
  int root_class[MAX_NODES];

  for (guint x = 0; x < MAX_NODES; x++)
    {
      parent[x] = x;
      root_class[x] = -1;
      e->class_of[x] = -1;
    }
  for (guint k = 0; k < c->equalities->len; k++)
    {
      const PrismDimEquality *eq = &g_array_index (c->equalities, PrismDimEquality, k);
      guint a = uf_find (parent, eq->a.input * PRISM_MAX_DIMS + eq->a.dim);
      guint b = uf_find (parent, eq->b.input * PRISM_MAX_DIMS + eq->b.dim);
      if (a != b)
        parent[MAX (a, b)] = MIN (a, b);
    }
  /* Classes in order of their first node, so the enumeration order is fixed. */
  for (guint i = 0; i < c->n_inputs; i++)
    for (guint d = 0; d < c->input_ndims[i]; d++)
      {
        guint x = i * PRISM_MAX_DIMS + d, r = uf_find (parent, x);
        DimClass *cl;

        if (root_class[r] < 0)
          {
            root_class[r] = (int) e->n_classes;
            cl = &e->classes[e->n_classes++];
            memset (cl, 0, sizeof *cl);
            cl->size = c->input_sizes[i][d];
          }
        cl = &e->classes[root_class[r]];
        for (guint m = 0; m < cl->n_members; m++)
          if (cl->members[m] / PRISM_MAX_DIMS == i)
            cl->twice_in_one_input = TRUE;
        cl->members[cl->n_members++] = x;
        cl->no_split |= c->no_split[i][d];
        e->class_of[x] = root_class[r];
      }
}

/* Fills the output maps from the sources of the output dims; FALSE if an
 * output dim is split by the loop or two of its dims by one axis. */
static gboolean
derive_omaps (Enumerator *e, PrismKernelChoice *ch)
{
  const PrismKernelConstraints *c = e->c;

  for (guint o = 0; o < c->n_outputs; o++)
    {
      for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
        ch->omap[o][p] = PRISM_MAP_REPLICATE;
      for (guint d = 0; d < c->output_ndims[o]; d++)
        {
          PrismDimRef src = c->output_source[o][d];
          int cl, p;

          if (src.input == PRISM_DIM_REF_NONE)
            continue;
          cl = e->class_of[src.input * PRISM_MAX_DIMS + src.dim];
          if (cl < 0)
            return FALSE;
          if (e->loop[cl])
            return FALSE;
          p = e->axis[cl];
          if (p < 0)
            continue;
          if (ch->omap[o][p] != PRISM_MAP_REPLICATE)
            return FALSE;
          ch->omap[o][p] = (int) d;
        }
      /* An axis summed over (−1) must split something the output reads
       * (a contracted or reduced dim); otherwise every block along it
       * computes the same tile and the sum would multiply it. */
      for (guint p = 0; p < ch->n_axes; p++)
        {
          gboolean splits_read = FALSE;

          if (ch->omap[o][p] != PRISM_MAP_REPLICATE)
            continue;
          for (guint i = 0; i < c->n_inputs && i < 8 && !splits_read; i++)
            splits_read = ch->imap[i][p] >= 0 &&
                          (c->output_reads[o] & ((guint32) 1 << (i * PRISM_MAX_DIMS + ch->imap[i][p])));
          if (!splits_read)
            return FALSE;
        }
    }
  return TRUE;
}

static void
emit_choice (Enumerator *e, guint n_axes)
{
  const PrismKernelConstraints *c = e->c;
  PrismKernelChoice ch;

  memset (&ch, 0, sizeof ch);
  e->stats->assignments++;
  ch.n_axes = n_axes;
  for (guint i = 0; i < PRISM_MAX_OP_INPUTS; i++)
    {
      ch.fmap[i] = PRISM_MAP_REPLICATE;
      for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
        ch.imap[i][p] = PRISM_MAP_REPLICATE;
    }
  for (guint i = 0; i < c->n_inputs; i++)
    for (guint d = 0; d < c->input_ndims[i]; d++)
      {
        int cl = e->class_of[i * PRISM_MAX_DIMS + d];
        if (e->axis[cl] >= 0)
          ch.imap[i][e->axis[cl]] = (int) d;
        if (e->loop[cl])
          {
            ch.fmap[i] = (int) d;
            ch.loop = TRUE;
          }
      }
  if (!derive_omaps (e, &ch))
    {
      e->stats->no_omap++;
      return;
    }
  g_array_append_val (e->out, ch);
}

static void
assign (Enumerator *e, guint k, guint n_axes)
{
  DimClass *cl;
  guint top;

  if (k == e->n_classes)
    {
      emit_choice (e, n_axes);
      return;
    }
  cl = &e->classes[k];
  /* Axes are numbered by first use: a class may take an axis already in
   * use or the next new one. */
  top = MIN (n_axes + 1, e->max_axes);
  for (int p = -1; p < (int) top; p++)
    {
      guint bit = p >= 0 ? 1u << p : 0;
      gboolean ok = TRUE;

      if (p >= 0 && (cl->size <= 1 || cl->twice_in_one_input))
        break;
      if (p >= 0 && (cl->no_split & PRISM_SPLIT_NO_GRID))
        {
          e->stats->no_split++;
          break;
        }
      for (guint m = 0; m < cl->n_members && ok; m++)
        ok = !(e->axes_used_by_input[cl->members[m] / PRISM_MAX_DIMS] & bit);
      if (!ok)
        continue;
      for (guint m = 0; m < cl->n_members; m++)
        e->axes_used_by_input[cl->members[m] / PRISM_MAX_DIMS] |= bit;
      e->axis[k] = p;

      for (int l = 0; l <= 1; l++)
        {
          gboolean lok = TRUE;

          if (l == 1 && (cl->size <= 1 || cl->twice_in_one_input))
            break;
          if (l == 1 && (cl->no_split & PRISM_SPLIT_NO_LOOP))
            {
              e->stats->no_split++;
              break;
            }
          for (guint m = 0; l == 1 && m < cl->n_members && lok; m++)
            lok = !e->input_has_loop[cl->members[m] / PRISM_MAX_DIMS];
          if (!lok)
            continue;
          for (guint m = 0; l == 1 && m < cl->n_members; m++)
            e->input_has_loop[cl->members[m] / PRISM_MAX_DIMS] = TRUE;
          e->loop[k] = l == 1;
          assign (e, k + 1, p == (int) n_axes ? n_axes + 1 : n_axes);
          for (guint m = 0; l == 1 && m < cl->n_members; m++)
            e->input_has_loop[cl->members[m] / PRISM_MAX_DIMS] = FALSE;
        }
      e->loop[k] = FALSE;
      for (guint m = 0; m < cl->n_members; m++)
        e->axes_used_by_input[cl->members[m] / PRISM_MAX_DIMS] &= ~bit;
    }
  e->axis[k] = -1;
}

GArray *
prism_map_enumerate_kernel (const PrismKernelConstraints *constraints, guint max_grid_dims,
                            PrismMapStats *stats)
{
  g_autofree Enumerator *e = g_new0 (Enumerator, 1);
  PrismMapStats local = { 0, };

  e->c = constraints;
  e->max_axes = CLAMP (max_grid_dims, 1, PRISM_MAX_GRID_DIMS);
  e->out = g_array_new (FALSE, FALSE, sizeof (PrismKernelChoice));
  e->stats = stats ? stats : &local;
  build_classes (e);
  assign (e, 0, 0);
  return e->out;
}

/* ------------------------------------------------------------------------ */
/* Candidates */

typedef struct
{
  const PrismSGraph *sg;
  const PrismGraph *program;
  GArray **choices;           /* per kernel */
  guint n_kernels;
  guint pick[64];
  GPtrArray *out;
  GHashTable *seen;
  PrismMapStats *stats;
  guint64 max_combinations;
  GError *error;
} Combiner;

static gboolean
outputs_match (const PrismGraph *g, const PrismGraph *program)
{
  g_autoptr(GArray) a = prism_graph_get_outputs (g);
  g_autoptr(GArray) b = prism_graph_get_outputs (program);

  if (a->len != b->len)
    return FALSE;
  for (guint o = 0; o < a->len; o++)
    {
      const PrismTensor *ta = prism_graph_tensor (g, g_array_index (a, guint, o));
      const PrismTensor *tb = prism_graph_tensor (program, g_array_index (b, guint, o));
      if (ta->ndims != tb->ndims)
        return FALSE;
      for (guint d = 0; d < ta->ndims; d++)
        if (!prism_dim_equal (ta->dims[d], tb->dims[d]))
          return FALSE;
    }
  return TRUE;
}

PrismGraph *
prism_map_build (const PrismSGraph *sgraph, const PrismGraph *program,
                 const PrismKernelChoice * const *choices, guint n_choices, PrismMapStats *stats)
{
  static const char * const axis_names[PRISM_MAX_GRID_DIMS] = { "gx", "gy", "gz" };
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) dims = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_dim_unref);
  g_autofree PrismKernelMaps *maps = g_new0 (PrismKernelMaps, MAX (n_choices, 1));
  g_autofree const PrismKernelMaps **mp = g_new0 (const PrismKernelMaps *, MAX (n_choices, 1));
  const char * const *old = prism_graph_var_names (sgraph->graph);
  gboolean all = TRUE;
  PrismMapStats local = { 0, };
  PrismGraph *g;
  guint k;

  if (stats == NULL)
    stats = &local;
  /* A kernel left symbolic keeps the sGraph's variables; they come first,
   * and new ones follow them, unused ones included (harmless). */
  for (guint i = 0; old[i] != NULL; i++)
    g_ptr_array_add (names, g_strdup (old[i]));
  for (guint c = 0; c < n_choices; c++)
    all &= choices[c] != NULL;
  if (all)
    g_ptr_array_set_size (names, 0);

  for (k = 0; k < n_choices; k++)
    {
      const PrismKernelChoice *ch = choices[k];
      PrismKernelMaps *km = &maps[k];
      PrismDim *d;

      if (ch == NULL)
        continue;
      km->grid_ndims = MAX (ch->n_axes, 1);
      for (guint p = 0; p < km->grid_ndims; p++)
        {
          if (ch->n_axes == 0)
            d = prism_dim_const (1);
          else
            {
              d = prism_dim_var (names->len);
              g_ptr_array_add (names, g_strdup_printf ("%s%u", axis_names[p], k));
            }
          g_ptr_array_add (dims, d);
          km->grid[p] = d;
        }
      if (ch->loop)
        {
          d = prism_dim_var (names->len);
          g_ptr_array_add (names, g_strdup_printf ("F%u", k));
        }
      else
        d = prism_dim_const (1);
      g_ptr_array_add (dims, d);
      km->forloop = d;
      memcpy (km->imap, ch->imap, sizeof km->imap);
      memcpy (km->fmap, ch->fmap, sizeof km->fmap);
      memcpy (km->omap, ch->omap, sizeof km->omap);
      mp[k] = km;
    }
  g_ptr_array_add (names, NULL);

  g = prism_graph_rebuild (sgraph->graph, (const char * const *) names->pdata, mp, n_choices,
                           NULL, NULL, NULL);
  if (g == NULL)
    {
      stats->shape++;
      return NULL;
    }
  if (all && !outputs_match (g, program))
    {
      stats->output_shape++;
      prism_graph_unref (g);
      return NULL;
    }
  return g;
}

static void
build_combination (Combiner *cb)
{
  const PrismKernelChoice *choices[64];
  g_autoptr(PrismGraph) g = NULL;
  PrismMapCandidate *cand;
  char *key;

  cb->stats->combinations++;
  for (guint k = 0; k < cb->n_kernels; k++)
    choices[k] = &g_array_index (cb->choices[k], PrismKernelChoice, cb->pick[k]);
  g = prism_map_build (cb->sg, cb->program, choices, cb->n_kernels, cb->stats);
  if (g == NULL)
    return;
  key = prism_graph_canonical_key (g, PRISM_KEY_MAPS | PRISM_KEY_SIZES);
  if (!g_hash_table_add (cb->seen, key))
    {
      cb->stats->duplicates++;
      return;
    }
  cand = g_new0 (PrismMapCandidate, 1);
  cand->graph = g_steal_pointer (&g);
  cand->key = g_strdup (key);
  g_ptr_array_add (cb->out, cand);
  cb->stats->candidates++;
}

static void
combine (Combiner *cb, guint k)
{
  if (k == cb->n_kernels)
    {
      if (cb->max_combinations > 0 && cb->stats->combinations >= cb->max_combinations)
        {
          cb->stats->truncated++;
          return;
        }
      build_combination (cb);
      return;
    }
  for (guint j = 0; j < cb->choices[k]->len; j++)
    {
      cb->pick[k] = j;
      combine (cb, k + 1);
    }
}

GPtrArray *
prism_map_instantiate (const PrismSGraph *sgraph, const PrismGraph *program, guint max_grid_dims,
                       guint64 max_combinations, PrismMapStats *stats, GError **error)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_map_candidate_free);
  PrismMapStats local = { 0, };
  Combiner cb = { 0, };
  gboolean failed = FALSE;
  guint nk = 0;

  g_return_val_if_fail (sgraph != NULL && program != NULL, NULL);
  if (stats == NULL)
    stats = &local;

  if (!sgraph->symbolic)
    {
      PrismMapCandidate *cand;

      if (!outputs_match (sgraph->graph, program))
        {
          stats->output_shape++;
          return g_steal_pointer (&out);
        }
      cand = g_new0 (PrismMapCandidate, 1);
      cand->graph = prism_graph_ref (sgraph->graph);
      cand->key = prism_graph_canonical_key (sgraph->graph, PRISM_KEY_MAPS | PRISM_KEY_SIZES);
      g_ptr_array_add (out, cand);
      stats->candidates++;
      return g_steal_pointer (&out);
    }

  for (guint i = 0; i < sgraph->graph->ops->len; i++)
    nk += prism_graph_op (sgraph->graph, i)->kind == PRISM_OP_KERNEL;
  if (nk != sgraph->constraints->len || nk > G_N_ELEMENTS (cb.pick))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                   "sGraph has %u custom kernels but %u constraint records", nk,
                   sgraph->constraints->len);
      return NULL;
    }
  cb.sg = sgraph;
  cb.program = program;
  cb.n_kernels = nk;
  cb.out = out;
  cb.stats = stats;
  cb.max_combinations = max_combinations > 0 ? stats->combinations + max_combinations : 0;
  cb.seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  cb.choices = g_new0 (GArray *, MAX (nk, 1));
  for (guint k = 0; k < nk; k++)
    {
      const PrismKernelConstraints *c = g_ptr_array_index (sgraph->constraints, k);
      if (c == NULL)
        {
          g_set_error (error, PRISM_ERROR, PRISM_ERROR_INVALID_GRAPH,
                       "custom kernel %u of the sGraph has no constraint record", k);
          failed = TRUE;
          goto out;
        }
      cb.choices[k] = prism_map_enumerate_kernel (c, max_grid_dims, stats);
    }
  combine (&cb, 0);

out:
  for (guint k = 0; k < nk; k++)
    if (cb.choices[k] != NULL)
      g_array_unref (cb.choices[k]);
  g_free (cb.choices);
  g_hash_table_unref (cb.seen);
  if (failed)
    return NULL;
  return g_steal_pointer (&out);
}
