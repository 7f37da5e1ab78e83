/* prism-search.c — depth-first construction of sGraphs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The search grows a kernel graph one step at a time: a predefined
 * kernel-level op, or a custom kernel that is opened (its inputs chosen),
 * filled with block-level ops and closed (its outputs chosen).  Every step
 * must be in canonical order, pass the shape rules, stay inside the hardware
 * and op-count limits, and produce a tensor whose abstract expression the
 * oracle accepts.  A state whose kernel-level sinks match the program's
 * outputs is reported as an sGraph.
 *
 * In symbolic mode a custom kernel has symbolic grid sizes, loop range and
 * maps: tiles keep their unpartitioned sizes, operands are matched on those
 * (recording which input dims must then be partitioned alike), and one block
 * graph stands for every choice of maps and sizes.  In enumerative mode the
 * grid, maps and loop range are chosen when the kernel is opened, as Mirage
 * does, and the same block-level search runs once per choice.
 *
 * Canonical order: an op is keyed by (largest operand id, operand ids, kind,
 * attribute[, body]); a step is taken only if its key is greater than the
 * last op's.  Because a newly available op always involves the newest
 * tensor, the order that always takes the smallest available key is the only
 * increasing one, so every graph is built exactly once.
 *
 * Threads: the tree is cut into tasks at a fixed depth on the thread that
 * calls prism_search_run(); tasks are numbered in depth-first order and run
 * on a GThreadPool.  Each worker owns its State (graphs included); only the
 * counters, the pruning cache and the control flags are shared.
 */
#include "config.h"

#include <string.h>
#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "prism-error.h"
#include "prism-search.h"

#define TICK_US (G_USEC_PER_SEC / 30)
#define STATS_FLUSH_STATES 2048
#define MAX_QUEUED_PER_THREAD 8
#define CACHE_SHARDS 32
#define CACHE_SHARD_MAX (1u << 20)

/* ------------------------------------------------------------------------ */
/* Names */

static const char * const reason_names[PRISM_N_PRUNE_REASONS] = {
  [PRISM_PRUNE_ORDER] = "order",
  [PRISM_PRUNE_DUPLICATE] = "duplicate",
  [PRISM_PRUNE_SHAPE] = "shape",
  [PRISM_PRUNE_LOOP] = "loop",
  [PRISM_PRUNE_EXPR] = "expr",
  [PRISM_PRUNE_SMEM] = "smem",
  [PRISM_PRUNE_ACCUM] = "accum",
  [PRISM_PRUNE_OPS] = "ops",
  [PRISM_PRUNE_TRIVIAL] = "trivial",
  [PRISM_PRUNE_TIME] = "time",
};

const char *
prism_prune_reason_to_string (PrismPruneReason reason)
{
  g_return_val_if_fail (reason < PRISM_N_PRUNE_REASONS, "?");
  return reason_names[reason];
}

const char *
prism_prune_reason_describe (PrismPruneReason reason)
{
  switch (reason)
    {
    case PRISM_PRUNE_ORDER:
      return _("Not in canonical order: the same graph is built along another path");
    case PRISM_PRUNE_DUPLICATE:
      return _("An operand is repeated where it adds nothing");
    case PRISM_PRUNE_SHAPE:
      return _("Shapes do not match");
    case PRISM_PRUNE_LOOP:
      return _("Mixes loop-body and epilogue tensors");
    case PRISM_PRUNE_EXPR:
      return _("Not a subexpression of the program");
    case PRISM_PRUNE_SMEM:
      return _("Shared memory over the limit");
    case PRISM_PRUNE_ACCUM:
      return _("Accumulator limits");
    case PRISM_PRUNE_OPS:
      return _("Op-count limits");
    case PRISM_PRUNE_TRIVIAL:
      return _("Only copies tiles: a kernel, an output or an accumulator that passes an input through");
    case PRISM_PRUNE_TIME:
      return _("Time budget exhausted");
    case PRISM_N_PRUNE_REASONS:
    default:
      g_return_val_if_reached ("?");
    }
}

const char *
prism_search_mode_to_string (PrismSearchMode mode)
{
  return mode == PRISM_SEARCH_ENUMERATIVE ? "enumerative" : "symbolic";
}

gboolean
prism_search_mode_from_string (const char *name, PrismSearchMode *out)
{
  if (g_strcmp0 (name, "symbolic") == 0)
    *out = PRISM_SEARCH_SYMBOLIC;
  else if (g_strcmp0 (name, "enumerative") == 0)
    *out = PRISM_SEARCH_ENUMERATIVE;
  else
    return FALSE;
  return TRUE;
}

guint64
prism_search_stats_total_pruned (const PrismSearchStats *stats)
{
  guint64 n = 0;

  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    n += stats->pruned[r];
  return n;
}

/* ------------------------------------------------------------------------ */
/* Options */

static const PrismOpKind default_kernel_ops[] = {
  PRISM_OP_MATMUL, PRISM_OP_EXP, PRISM_OP_SQUARE, PRISM_OP_SQRT, PRISM_OP_SILU, PRISM_OP_GELU,
  PRISM_OP_RELU, PRISM_OP_ADD, PRISM_OP_SUB, PRISM_OP_MUL, PRISM_OP_DIV, PRISM_OP_SUM,
  PRISM_OP_RMS_NORM,
  /* Last, so that the order of the others (and the search of programs
   * without these, which restrict_vocabulary() drops) is unchanged. */
  PRISM_OP_MAX, PRISM_OP_MEAN, PRISM_OP_MAXIMUM, PRISM_OP_TRANSPOSE,
};

static const PrismOpKind default_block_ops[] = {
  PRISM_OP_MATMUL, PRISM_OP_EXP, PRISM_OP_SQUARE, PRISM_OP_SQRT, PRISM_OP_SILU, PRISM_OP_GELU,
  PRISM_OP_RELU, PRISM_OP_ADD, PRISM_OP_SUB, PRISM_OP_MUL, PRISM_OP_DIV, PRISM_OP_SUM,
  PRISM_OP_RMS_NORM, PRISM_OP_ACCUM, PRISM_OP_ACCUM_SUM, PRISM_OP_ACCUM_MEAN, PRISM_OP_ACCUM_RMS,
  PRISM_OP_MAX, PRISM_OP_MEAN, PRISM_OP_MAXIMUM,
  /* The online softmax: one step adds max, accum_max and running_max
   * (add_running_max()); accum and accum_sum of a value that depends on
   * the running max become accum_online and accum_sum_online. */
  PRISM_OP_RUNNING_MAX,
  /* Only of a block INPUT's tile of a program input that the program
   * transposes, by that permutation (a tile read transposed: the row-major
   * weight of a linear layer). */
  PRISM_OP_TRANSPOSE,
};

void
prism_search_options_init (PrismSearchOptions *options)
{
  memset (options, 0, sizeof *options);
  options->mode = PRISM_SEARCH_SYMBOLIC;
  options->n_threads = 0;
  options->time_limit_s = 60.0;
  options->max_kernel_ops = 3;
  options->max_total_ops = 0;      /* prism_search_auto_total_ops() */
  options->max_kernels = 2;
  options->max_kernel_inputs = 0;  /* prism_search_auto_kernel_inputs() */
  options->max_block_ops = 0;      /* prism_search_auto_block_ops() */
  options->max_block_outputs = 2;
  options->max_accums = 3;
  options->max_grid_dims = 3;
  options->block_threads = 128;
  options->smem_limit = 96 * 1024;
  options->max_blocks = 4096;
  options->split_depth = 0;
}

guint
prism_search_min_tasks_for (guint n_processes)
{
  return n_processes > 1 ? PRISM_SEARCH_TASKS_PER_PROCESS * n_processes : 0;
}

/* How many times a tile of @tile elements halves evenly, up to 4 (16 elements
 * and more are alike): tiles aligned to 8 and 16 get vector loads and
 * tensor-core fragments, so they are kept first when there are too many. */
static guint
tile_alignment (gint64 tile)
{
  guint a = 0;

  while (a < 4 && tile % 2 == 0)
    {
      tile /= 2;
      a++;
    }
  return a;
}

static int
compare_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* The divisors of @n in [@lo, @hi], ascending (pairs below √n: a dim of
 * 2^36 elements takes 2^18 steps, not 2^33). */
static void
collect_divisors (gint64 n, gint64 lo, gint64 hi, GArray *out)
{
  for (gint64 d = 1; d <= n / d; d++)
    if (n % d == 0)
      {
        gint64 e = n / d;

        if (d >= lo && d <= hi)
          g_array_append_val (out, d);
        if (e != d && e >= lo && e <= hi)
          g_array_append_val (out, e);
      }
  g_array_sort (out, compare_gint64);
}

void
prism_search_size_candidates (gint64 data_dim, gboolean loop, GArray *out)
{
  gint64 lo, hi;
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint per_class[5] = { 0, };
  guint kept = 0, cut = 0, cut_take = 0;

  g_array_set_size (out, 0);
  if (data_dim <= 1)
    return;
  if (data_dim <= 64)
    {
      lo = 2;
      hi = data_dim;
    }
  else if (loop)
    {
      /* Loop tiles between 16 and 256 elements. */
      lo = MAX (2, data_dim / 256);
      hi = data_dim / 16;
    }
  else
    {
      /* Grid tiles between 8 and 512 elements. */
      lo = MAX (2, data_dim / 512);
      hi = data_dim / 8;
    }
  /* Every divisor in the window, powers of two or not: 3000 is split into
   * 125 blocks of 24, 6144 into 192 blocks of 32 (Mirage's grid on 132
   * SMs).  Sizes that do not divide are never candidates: the emitter has
   * no partial tiles. */
  collect_divisors (data_dim, lo, hi, all);
  for (guint i = 0; i < all->len; i++)
    per_class[tile_alignment (data_dim / g_array_index (all, gint64, i))]++;
  if (all->len <= PRISM_SEARCH_MAX_SIZE_CANDIDATES)
    {
      g_array_append_vals (out, all->data, all->len);
      return;
    }
  /* Too many (a size with many small factors): the best-aligned tiles
   * whole, then an even spread of the first class that does not fit. */
  for (cut = 4; cut > 0 && kept + per_class[cut] <= PRISM_SEARCH_MAX_SIZE_CANDIDATES; cut--)
    kept += per_class[cut];
  cut_take = PRISM_SEARCH_MAX_SIZE_CANDIDATES - kept;
  for (guint i = 0, seen = 0; i < all->len; i++)
    {
      gint64 v = g_array_index (all, gint64, i);
      guint a = tile_alignment (data_dim / v);

      if (a > cut)
        g_array_append_val (out, v);
      else if (a == cut)
        {
          /* The k-th of the class is kept when the spread steps past it. */
          if (cut_take > 0 &&
              (guint64) (seen + 1) * cut_take / per_class[cut] != (guint64) seen * cut_take / per_class[cut])
            g_array_append_val (out, v);
          seen++;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Hashing and the pruning cache.  A tensor's abstract expression and its
 * shape depend only on the ops and inputs it is computed from, so a hash of
 * that cone names every outcome the search can reuse. */

static inline guint64
mix64 (guint64 x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static inline guint64
hash_add (guint64 h, guint64 v)
{
  return mix64 (h ^ mix64 (v));
}

static guint64
hash_dim (guint64 h, const PrismDim *d)
{
  if (prism_dim_is_const (d))
    return hash_add (h, (guint64) d->value);
  return hash_add (h, 0x8000000000000000ull | prism_dim_hash (d));
}

enum
{
  CACHE_MISS = 0,
  CACHE_OK,
  CACHE_SHAPE,
  CACHE_LOOP,
  CACHE_EXPR,
};

typedef struct
{
  GMutex lock;
  guint64 *keys;   /* 0 = empty */
  guint8 *values;
  guint size;      /* power of two */
  guint n;
} CacheShard;

static void
shard_clear (CacheShard *sh)
{
  g_free (sh->keys);
  g_free (sh->values);
  sh->size = 1024;
  sh->n = 0;
  sh->keys = g_new0 (guint64, sh->size);
  sh->values = g_new0 (guint8, sh->size);
}

/* A direct-mapped front of the shared cache, one per thread: most lookups
 * repeat what the same thread just asked, and need no lock. */
#define FRONT_BITS 16

typedef struct
{
  guint64 keys[1 << FRONT_BITS];
  guint8 values[1 << FRONT_BITS];
} FrontCache;

static void
front_free (gpointer data)
{
  g_free (data);
}

static GPrivate front_cache = G_PRIVATE_INIT (front_free);

static FrontCache *
front (void)
{
  FrontCache *f = g_private_get (&front_cache);

  if (f == NULL)
    {
      f = g_new0 (FrontCache, 1);
      g_private_set (&front_cache, f);
    }
  return f;
}

static guint8
shared_get (CacheShard *shards, guint64 key)
{
  CacheShard *sh;
  guint8 v = CACHE_MISS;

  sh = &shards[key % CACHE_SHARDS];
  g_mutex_lock (&sh->lock);
  for (guint i = (guint) (key >> 8) & (sh->size - 1);; i = (i + 1) & (sh->size - 1))
    {
      if (sh->keys[i] == key)
        {
          v = sh->values[i];
          break;
        }
      if (sh->keys[i] == 0)
        break;
    }
  g_mutex_unlock (&sh->lock);
  return v;
}

static void
shard_insert (CacheShard *sh, guint64 key, guint8 value)
{
  guint i;

  for (i = (guint) (key >> 8) & (sh->size - 1); sh->keys[i] != 0 && sh->keys[i] != key;
       i = (i + 1) & (sh->size - 1))
    ;
  if (sh->keys[i] == 0)
    sh->n++;
  sh->keys[i] = key;
  sh->values[i] = value;
}

/* Keys are tagged with the search's unique id so that a thread's front
 * cache never answers for another search (a new search may be allocated
 * where an old one was, with other options). */
static guint8
cache_get (CacheShard *shards, guint64 tag, guint64 key)
{
  FrontCache *f = front ();
  guint idx;
  guint8 v;

  key = mix64 (key ^ tag) | 1;
  idx = (guint) (key >> 7) & ((1u << FRONT_BITS) - 1);
  if (f->keys[idx] == key)
    return f->values[idx];
  v = shared_get (shards, key);
  if (v != CACHE_MISS)
    {
      f->keys[idx] = key;
      f->values[idx] = v;
    }
  return v;
}

static void
cache_put (CacheShard *shards, guint64 tag, guint64 key, guint8 value)
{
  FrontCache *f = front ();
  CacheShard *sh;
  guint idx;

  key = mix64 (key ^ tag) | 1;
  idx = (guint) (key >> 7) & ((1u << FRONT_BITS) - 1);
  f->keys[idx] = key;
  f->values[idx] = value;
  sh = &shards[key % CACHE_SHARDS];
  g_mutex_lock (&sh->lock);
  if (sh->n * 2 >= sh->size)
    {
      /* Memory stays bounded however long the search runs: a full shard
       * starts over rather than growing without end. */
      if (sh->size >= CACHE_SHARD_MAX)
        shard_clear (sh);
      else
        {
          guint64 *old_keys = sh->keys;
          guint8 *old_values = sh->values;
          guint old_size = sh->size;

          sh->size *= 2;
          sh->n = 0;
          sh->keys = g_new0 (guint64, sh->size);
          sh->values = g_new0 (guint8, sh->size);
          for (guint i = 0; i < old_size; i++)
            if (old_keys[i] != 0)
              shard_insert (sh, old_keys[i], old_values[i]);
          g_free (old_keys);
          g_free (old_values);
        }
    }
  shard_insert (sh, key, value);
  g_mutex_unlock (&sh->lock);
}

/* ------------------------------------------------------------------------ */
/* Op keys for the canonical order */

typedef struct
{
  gboolean none;          /* the key before any op: everything is greater */
  guint max_id;
  guint n;
  guint ids[PRISM_MAX_OP_INPUTS];
  int kind;
  int attr;
  guint64 body;
} OpKey;

static void
opkey_set (OpKey *k, PrismOpKind kind, const guint *ids, guint n, int attr, guint64 body)
{
  k->none = FALSE;
  k->max_id = 0;
  k->n = n;
  for (guint i = 0; i < n; i++)
    {
      k->ids[i] = ids[i];
      k->max_id = MAX (k->max_id, ids[i]);
    }
  k->kind = (int) kind;
  k->attr = attr;
  k->body = body;
}

static int
opkey_compare (const OpKey *a, const OpKey *b)
{
  if (a->none || b->none)
    return a->none == b->none ? 0 : a->none ? -1 : 1;
  if (a->max_id != b->max_id)
    return a->max_id < b->max_id ? -1 : 1;
  for (guint i = 0; i < MIN (a->n, b->n); i++)
    if (a->ids[i] != b->ids[i])
      return a->ids[i] < b->ids[i] ? -1 : 1;
  if (a->n != b->n)
    return a->n < b->n ? -1 : 1;
  if (a->kind != b->kind)
    return a->kind < b->kind ? -1 : 1;
  if (a->attr != b->attr)
    return a->attr < b->attr ? -1 : 1;
  if (a->body != b->body)
    return a->body < b->body ? -1 : 1;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Search state */

/* Dimension roles: the logical index (n, d, h …) a dim stands for. */
#define ROLE_ONE 0xff      /* a dim of size 1 (reduced, or broadcast) */
#define ROLE_ANY 0xfe      /* roles are off: matches everything */
#define MAX_ROLES 64

typedef struct
{
  guint64 hash;
  guint64 sem;                       /* meaning in the untiled program */
  guint uses;
  guint8 role[PRISM_MAX_DIMS];
} KInfo;

typedef struct
{
  guint64 hash;
  guint64 sem;                       /* meaning in the untiled program, and loop or epilogue */
  guint uses;
  gboolean accumulated;              /* an accumulator reads it */
  guint32 reads;                     /* input dims it depends on (bit input * 4 + dim) */
  guint32 partial;                   /* input dims it is a partial reduction over (same bits) */
  guint online;                      /* 1 + the running max it depends on, or 0 */
  PrismDimRef src[PRISM_MAX_DIMS];   /* the input dim each dim comes from */
} BInfo;

/* The custom kernel being built. */
typedef struct
{
  PrismGraph *bg;
  guint in[PRISM_MAX_OP_INPUTS];   /* kernel tensors read by the block INPUT ops */
  guint n_in;
  GArray *info;                    /* BInfo per block tensor */
  GArray *eq;                      /* PrismDimEquality */
  guint8 no_split[PRISM_MAX_OP_INPUTS][PRISM_MAX_DIMS];
  OpKey last;
  guint n_ops;                     /* block ops, inputs included */
  guint n_accums;
  guint n_sinks;                   /* tensors nobody reads */
  guint n_open_sinks;              /* … of which not after an accumulator */
  guint64 input_hash;              /* hash of the kernel's inputs and grid */
} Block;

typedef struct
{
  guint64 states;
  guint64 states_by_depth[PRISM_SEARCH_MAX_DEPTH];
  guint64 pruned[PRISM_N_PRUNE_REASONS];
  guint64 pruned_by_depth[PRISM_SEARCH_MAX_DEPTH][PRISM_N_PRUNE_REASONS];
  guint64 sgraphs;
} LocalStats;

typedef struct _State State;

struct _State
{
  PrismSearch *search;
  gboolean split_phase;
  guint task;                      /* running task, or G_MAXUINT in the split phase */
  gboolean aborted;
  guint check_counter;
  LocalStats stats;

  PrismGraph *kg;
  GArray *kinfo;                   /* KInfo per kernel tensor */
  GPtrArray *constraints;          /* PrismKernelConstraints* per KERNEL op */
  OpKey klast;
  guint n_kops;
  guint n_kernels;
  guint n_total;                   /* ops of the whole graph: predefined ops and block ops */
  guint depth;
  Block *blk;                      /* the open kernel, or NULL at kernel level */
};

typedef struct
{
  guint index;
  State *state;                    /* a subtree to search … */
  PrismSGraph *sgraph;             /* … or an sGraph found above the split depth */
} Task;

struct _PrismSearch
{
  PrismSearchOptions opts;
  PrismOpKind kernel_ops[PRISM_N_OPS];
  PrismOpKind block_ops[PRISM_N_OPS];
  PrismGraph *program;             /* kernel INPUT ops only, plus the size variables */
  guint n_program_inputs;
  guint n_outputs;
  guint out_ndims[PRISM_MAX_OP_OUTPUTS];
  gint64 out_shape[PRISM_MAX_OP_OUTPUTS][PRISM_MAX_DIMS];
  char *out_names[PRISM_MAX_OP_OUTPUTS];   /* the program's, for the candidates */
  guint var_base;
  /* Reductions the program makes, by unpartitioned size: a sum or a norm
   * over a dim of another size cannot be part of an equivalent program
   * (abstract expressions only see degrees, not which dim is reduced). */
  gint64 sum_sizes[16];
  guint n_sum_sizes;
  gint64 norm_sizes[16];
  guint n_norm_sizes;
  double norm_eps;         /* the eps of the program's rms_norms (the last one's) */
  /* The transposes the program makes (the only ones the search tries). */
  int perms[8][PRISM_MAX_DIMS];
  guint perm_ndims[8];
  /* Per permutation, the program inputs (bit k: input k) it transposes:
   * the only kernel inputs a block transposes. */
  guint32 perm_inputs[8];
  guint n_perms;
  /* Dimension roles of the program (see compute_roles()). */
  gboolean roles_on;
  guint8 input_roles[PRISM_MAX_OP_INPUTS * 4][PRISM_MAX_DIMS];
  guint8 output_roles[PRISM_MAX_OP_OUTPUTS][PRISM_MAX_DIMS];
  guint64 sum_roles;       /* roles the program sums over */
  guint64 norm_roles;      /* roles rms_norm normalizes over */
  guint64 contract_roles;  /* roles matmuls contract */

  PrismSearchObserver observer;
  gpointer observer_data;
  /* Pruned samples: taken per (depth, reason) bucket while the bucket and
   * the global allowance last (atomic; counts may overshoot the bound). */
  gint sample_counts[PRISM_SEARCH_MAX_DEPTH][PRISM_N_PRUNE_REASONS];
  gint samples_left;
  gboolean counting;               /* the split phase only counts its tasks (choose_split_depth()) */
  GHashTable *skip;                /* task indices done in an earlier run */
  double elapsed_offset;

  CacheShard cache[CACHE_SHARDS];
  guint64 tag;                     /* unique per search: keys of the thread-local cache */

  /* Shared by all threads, under @lock. */
  GMutex lock;
  GCond cond;
  PrismSearchStats stats;
  PrismSearchStats split_stats;    /* the split phase's share of @stats */
  guint queued;                    /* tasks pushed and not finished */
  gint64 start_us;
  gint64 paused_total_us;
  gint64 pause_start_us;
  gint64 time_limit_us;            /* ≤ 0: none */
  const char *stop_reason;

  /* Lock-free flags. */
  gint stop;
  gint paused;
  gint running;
  /* Cancelled with @stop: the current cancellable of the worker threads,
   * so that whatever a found sGraph sets off (map instantiation, the
   * verifier, the interpreter) sees the stop too (prism_cancelled()). */
  GCancellable *cancel;

  /* The split phase (thread of prism_search_run() only). */
  GThreadPool *pool;
  guint next_task;
  gint64 last_tick_us;
};

static void search_kernel (State *s);
static void search_block (State *s);
static gboolean roles_match (guint8 a, guint8 b);

/* ------------------------------------------------------------------------ */
/* State helpers */

static void
block_free (Block *b)
{
  if (b == NULL)
    return;
  prism_graph_unref (b->bg);
  g_array_unref (b->info);
  g_array_unref (b->eq);
  g_free (b);
}

static Block *
block_copy (const Block *b)
{
  Block *c = g_memdup2 (b, sizeof *b);

  c->bg = prism_graph_copy (b->bg);
  c->info = g_array_copy (b->info);
  c->eq = g_array_copy (b->eq);
  return c;
}

static State *
state_copy (const State *s)
{
  State *c = g_new0 (State, 1);

  c->search = s->search;
  c->task = G_MAXUINT;
  c->kg = prism_graph_copy (s->kg);
  c->kinfo = g_array_copy (s->kinfo);
  c->constraints = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_kernel_constraints_free);
  for (guint i = 0; i < s->constraints->len; i++)
    g_ptr_array_add (c->constraints,
                     prism_kernel_constraints_copy (g_ptr_array_index (s->constraints, i)));
  c->klast = s->klast;
  c->n_kops = s->n_kops;
  c->n_total = s->n_total;
  c->n_kernels = s->n_kernels;
  c->depth = s->depth;
  c->blk = s->blk ? block_copy (s->blk) : NULL;
  return c;
}

static void
state_free (State *s)
{
  if (s == NULL)
    return;
  prism_graph_unref (s->kg);
  g_array_unref (s->kinfo);
  g_ptr_array_unref (s->constraints);
  block_free (s->blk);
  g_free (s);
}

static KInfo *
kinfo (State *s, guint t)
{
  return &g_array_index (s->kinfo, KInfo, t);
}

static BInfo *
binfo (Block *b, guint t)
{
  return &g_array_index (b->info, BInfo, t);
}

static void
add_local_stats (PrismSearchStats *to, const LocalStats *from)
{
  to->states += from->states;
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    to->states_by_depth[d] += from->states_by_depth[d];
  for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
    to->pruned[r] += from->pruned[r];
  /* Sums, so the totals do not depend on how the work was split over
   * threads or when each thread flushed. */
  for (guint d = 0; d < PRISM_SEARCH_MAX_DEPTH; d++)
    for (guint r = 0; r < PRISM_N_PRUNE_REASONS; r++)
      to->pruned_by_depth[d][r] += from->pruned_by_depth[d][r];
  to->sgraphs += from->sgraphs;
}

static void
flush_stats (State *s)
{
  PrismSearch *search = s->search;

  g_mutex_lock (&search->lock);
  add_local_stats (&search->stats, &s->stats);
  if (s->split_phase)
    add_local_stats (&search->split_stats, &s->stats);
  g_mutex_unlock (&search->lock);
  memset (&s->stats, 0, sizeof s->stats);
}

/* Every call site is in the step that extends the state at s->depth (the
 * depth goes up only once a step is taken), so the branch is counted at the
 * depth of the state it would have extended. */
static inline void
prune (State *s, PrismPruneReason reason)
{
  s->stats.pruned[reason]++;
  s->stats.pruned_by_depth[MIN (s->depth, PRISM_SEARCH_MAX_DEPTH - 1)][reason]++;
}

/* ------------------------------------------------------------------------ */
/* Pruned samples */

void
prism_prune_sample_free (PrismPruneSample *sample)
{
  if (sample == NULL)
    return;
  g_clear_pointer (&sample->graph, prism_graph_unref);
  g_free (sample->step);
  g_free (sample->evidence);
  g_free (sample);
}

/* A step the search tries, as a pruned sample names it.  Built on the
 * stack at the prune sites; read only when the decision is sampled. */
typedef struct
{
  gboolean block;              /* in the open kernel's body */
  PrismOpKind kind;            /* PRISM_N_OPS: @what says what was tried */
  const guint *ins;
  guint n;
  const PrismOpAttrs *attrs;   /* nullable */
  int added;                   /* the op the step already added to its graph, or -1 */
  gint64 arg;                  /* DUPLICATE: the tensor holding the same value; EXPR with
                                * @added: the tensor judged; SMEM: bytes; else -1 */
  /* Untranslated (N_()): translated only when a sample is taken, since
   * gettext is too slow for the hot path. */
  const char *what;            /* nullable: the step, when it is not one op */
  const char *hint;            /* nullable: what the check compared */
} Step;

static Step
step_of (gboolean block, PrismOpKind kind, const guint *ins, guint n, const PrismOpAttrs *attrs)
{
  return (Step) { block, kind, ins, n, attrs, -1, -1, NULL, NULL };
}

static Step
step_named (gboolean block, const char *what)
{
  return (Step) { block, PRISM_N_OPS, NULL, 0, NULL, -1, -1, what, NULL };
}

/* The step already added op @added to its graph. */
static Step
step_added (Step st, int added)
{
  st.added = added;
  return st;
}

static Step
step_arg (Step st, gint64 arg)
{
  st.arg = arg;
  return st;
}

static Step
step_hint (Step st, const char *hint)
{
  st.hint = hint;
  return st;
}

/* Closing the open kernel (writing *@sink, or all its sinks when NULL). */
static Step
close_step (const guint *sink)
{
  Step st = step_named (TRUE, N_("close the kernel"));


  st.ins = sink;
  st.n = sink != NULL ? 1 : 0;
  if (sink != NULL)
    st.hint = N_("the output map does not fit the tile");
  return st;
}

static void
append_operands (GString *out, const char *prefix, const guint *ins, guint n)
{
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s%s%u", i > 0 ? ", " : "", prefix, ins[i]);
}

static char *
step_to_string (State *s, const Step *st)
{
  GString *out = g_string_new (NULL);

  if (st->block && s->blk != NULL)
    g_string_append_printf (out, _("kernel %u: "), s->n_kernels);
  if (st->what != NULL)
    {
      g_string_append (out, _(st->what));
      if (st->n > 0)
        {
          g_string_append (out, " (");
          append_operands (out, st->block ? "b" : "t", st->ins, st->n);
          g_string_append_c (out, ')');
        }
    }
  else
    {
      g_string_append_printf (out, "%s(", prism_op_kind_to_string (st->kind));
      append_operands (out, st->block ? "b" : "t", st->ins, st->n);
      if (st->attrs != NULL && st->kind == PRISM_OP_SUM)
        g_string_append_printf (out, _(", dim %d"), st->attrs->dim);
      g_string_append_c (out, ')');
    }
  return g_string_free (out, FALSE);
}

/* Adds the step to @g (a copy) where the builders take it; returns the
 * tensor it made, or -1.  *@op is the op the step added, or -1. */
static int
apply_step (PrismGraph *g, const Step *st, int *op, GError **error)
{
  const PrismOp *o;

  *op = st->added;
  if (st->added < 0)
    {
      if (st->kind >= PRISM_N_OPS || st->kind == PRISM_OP_INPUT || st->kind == PRISM_OP_KERNEL)
        return -1;
      *op = prism_graph_add_op (g, st->kind, st->ins, st->n, st->attrs, error);
      if (*op < 0)
        return -1;
    }
  if (st->arg >= 0 && st->added >= 0)
    return (int) st->arg;
  o = prism_graph_op (g, (guint) *op);
  return o->n_outputs > 0 ? (int) o->outputs[0] : -1;
}

static char *
shapes_text (const PrismGraph *g, const Step *st, const char *prefix)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < st->n; i++)
    {
      g_autofree char *shape = prism_tensor_shape_to_string (g, prism_graph_tensor (g, st->ins[i]));
      g_string_append_printf (out, "%s%s%u %s", i > 0 ? ", " : "", prefix, st->ins[i], shape);
    }
  if (st->hint != NULL)
    g_string_append_printf (out, "%s%s", out->len > 0 ? ": " : "", _(st->hint));
  return g_string_free (out, FALSE);
}

static char *
opkey_to_string (const OpKey *k, const char *prefix)
{
  GString *out;

  if (k->none)
    return g_strdup (_("nothing"));
  out = g_string_new (prism_op_kind_to_string ((PrismOpKind) k->kind));
  g_string_append_c (out, '(');
  append_operands (out, prefix, k->ids, k->n);
  g_string_append_c (out, ')');
  return g_string_free (out, FALSE);
}

static char *
expr_text (State *s, const PrismGraph *kg, const PrismGraph *bg, int tensor)
{
  PrismSearch *search = s->search;
  PrismAbstractMode mode = search->opts.oracle != NULL ? prism_oracle_get_mode (search->opts.oracle)
                           : search->opts.mode == PRISM_SEARCH_SYMBOLIC ? PRISM_ABSTRACT_UNTILED
                                                                        : PRISM_ABSTRACT_CONCRETE;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrismTerm) term = NULL;
  g_autofree char *text = NULL;

  if (tensor < 0)
    return g_strdup (_("the step's expression is not a subexpression of the target"));
  term = prism_abstract_expr_of_tensor (kg, bg, bg != NULL ? s->blk->in : NULL, bg != NULL,
                                        (guint) tensor, mode, &error);
  if (term == NULL)
    return g_strdup_printf (_("the expression cannot be evaluated: %s"), error->message);
  text = prism_term_to_string (term);
  return g_strdup_printf (_("%s is not a subexpression of the target"), text);
}

static char *
limits_text (State *s, const char *hint)
{
  const PrismSearchOptions *o = &s->search->opts;
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, _("kernel-level ops %u of %u, custom kernels %u of %u, all ops %u of %u"),
                          s->n_kops, o->max_kernel_ops, s->n_kernels, o->max_kernels, s->n_total,
                          o->max_total_ops);
  if (s->blk != NULL)
    g_string_append_printf (out, _(", block ops %u of %u, open sinks %u"), s->blk->n_ops,
                            o->max_block_ops, s->blk->n_open_sinks);
  if (hint != NULL)
    g_string_append_printf (out, ": %s", _(hint));
  return g_string_free (out, FALSE);
}

static char *
evidence_text (State *s, PrismPruneReason reason, const Step *st, const PrismGraph *kg,
               const PrismGraph *bg, int tensor, const GError *build_error)
{
  const PrismGraph *g = bg != NULL ? bg : s->kg;
  const char *prefix = bg != NULL ? "b" : "t";

  switch (reason)
    {
    case PRISM_PRUNE_ORDER:
      {
        g_autofree char *last = opkey_to_string (st->block && s->blk ? &s->blk->last : &s->klast,
                                                 prefix);
        return g_strdup_printf (_("the last step, %s, does not come before it in the canonical order"),
                                last);
      }
    case PRISM_PRUNE_DUPLICATE:
      if (st->arg >= 0)
        return g_strdup_printf (_("%s%u already holds the same value"), prefix, (guint) st->arg);
      return g_strdup (_("an operand is repeated"));
    case PRISM_PRUNE_SHAPE:
      if (build_error != NULL)
        return g_strdup (build_error->message);
      return shapes_text (g, st, prefix);
    case PRISM_PRUNE_LOOP:
      {
        GString *out = g_string_new (NULL);
        for (guint i = 0; i < st->n && bg != NULL; i++)
          g_string_append_printf (out, "%sb%u %s", i > 0 ? ", " : "", st->ins[i],
                                  prism_graph_tensor (bg, st->ins[i])->after_accum
                                  ? _("is after the accumulator") : _("is in the loop"));
        return g_string_free (out, FALSE);
      }
    case PRISM_PRUNE_EXPR:
      return expr_text (s, kg, bg, tensor);
    case PRISM_PRUNE_SMEM:
      {
        g_autofree char *used = g_strdup_printf ("%" G_GINT64_FORMAT, st->arg);
        g_autofree char *limit = g_strdup_printf ("%" G_GUINT64_FORMAT, s->search->opts.smem_limit);
        return g_strdup_printf (_("%s bytes of shared memory per block, more than %s"), used, limit);
      }
    case PRISM_PRUNE_ACCUM:
      if (s->blk != NULL && st->n > 0 && binfo (s->blk, st->ins[0])->accumulated)
        return g_strdup_printf (_("b%u is accumulated already"), st->ins[0]);
      return g_strdup_printf (_("%u accumulators, at most %u"), s->blk ? s->blk->n_accums : 0,
                              s->search->opts.max_accums);
    case PRISM_PRUNE_TRIVIAL:
      return g_strdup (st->hint != NULL ? _(st->hint) : _("the kernel only copies tiles"));
    case PRISM_PRUNE_OPS:
    default:
      return limits_text (s, st->hint);
    }
}

/* The cold half of PRUNE_STEP(): claims a place in the bucket and hands the
 * observer a copy of the partial graph with the step marked. */
static G_GNUC_NO_INLINE void
take_sample (State *s, PrismPruneReason reason, guint depth, const Step *st)
{
  PrismSearch *search = s->search;
  g_autoptr(GError) build_error = NULL;
  g_autoptr(PrismGraph) bg = NULL;
  PrismPruneSample *ps;
  int tensor;

  if (g_atomic_int_add (&search->sample_counts[depth][reason], 1) >= PRISM_SEARCH_SAMPLES_PER_BUCKET)
    return;
  if (g_atomic_int_add (&search->samples_left, -1) <= 0)
    return;
  ps = g_new0 (PrismPruneSample, 1);
  ps->depth = depth;
  ps->reason = reason;
  ps->task = s->task;
  ps->step = step_to_string (s, st);
  ps->graph = prism_graph_copy (s->kg);
  ps->marked_op = ps->marked_block_op = -1;
  if (st->block && s->blk != NULL)
    {
      bg = prism_graph_copy (s->blk->bg);
      tensor = apply_step (bg, st, &ps->marked_block_op, &build_error);
      ps->evidence = evidence_text (s, reason, st, s->kg, bg, tensor, build_error);
      ps->marked_op = prism_graph_add_open_kernel (ps->graph, s->blk->in, s->blk->n_in, bg, NULL);
    }
  else if (st->kind == PRISM_OP_KERNEL && s->blk != NULL && st->added < 0)
    {
      /* Closing the open kernel: show it, outputs or not. */
      bg = prism_graph_copy (s->blk->bg);
      ps->marked_op = prism_graph_add_open_kernel (ps->graph, s->blk->in, s->blk->n_in, bg, NULL);
      ps->evidence = evidence_text (s, reason, st, ps->graph, NULL, -1, NULL);
    }
  else
    {
      tensor = apply_step (ps->graph, st, &ps->marked_op, &build_error);
      ps->evidence = evidence_text (s, reason, st, ps->graph, NULL, tensor, build_error);
    }
  search->observer.pruned_sample (search, ps, search->observer_data);
}

/* Whether a decision pruned now would be sampled: two atomic reads, once
 * the buckets are full the only cost of sampling on the hot path. */
static inline gboolean
sample_wanted (State *s, PrismPruneReason reason)
{
  PrismSearch *search = s->search;
  guint depth = MIN (s->depth, PRISM_SEARCH_MAX_DEPTH - 1);

  return g_atomic_int_get (&search->samples_left) > 0 &&
         g_atomic_int_get (&search->sample_counts[depth][reason]) < PRISM_SEARCH_SAMPLES_PER_BUCKET;
}

/* prune() that also samples the decision while its bucket has room.  A
 * macro so that @step (a Step expression) is only built then: building it
 * at every try would cost more than the rest of the sampling. */
#define PRUNE_STEP(s, reason, step)                                            \
  G_STMT_START {                                                               \
    prune ((s), (reason));                                                     \
    if (G_UNLIKELY (sample_wanted ((s), (reason))))                            \
      {                                                                        \
        Step step_ = (step);                                                   \
        take_sample ((s), (reason), MIN ((s)->depth, PRISM_SEARCH_MAX_DEPTH - 1), &step_); \
      }                                                                        \
  } G_STMT_END

static void
count_state (State *s)
{
  s->stats.states++;
  s->stats.states_by_depth[MIN (s->depth, PRISM_SEARCH_MAX_DEPTH - 1)]++;
  if (s->stats.states >= STATS_FLUSH_STATES)
    flush_stats (s);
}

static gint64
elapsed_us_locked (PrismSearch *search, gint64 now)
{
  gint64 paused = search->paused_total_us;

  if (search->pause_start_us > 0)
    paused += now - search->pause_start_us;
  return now - search->start_us - paused;
}

/* Stops the search with @reason (the first reason stays).  Call without
 * the lock: cancelling runs the cancellable's handlers. */
static void
stop_with (PrismSearch *search, const char *reason)
{
  g_mutex_lock (&search->lock);
  if (search->stop_reason == NULL)
    search->stop_reason = reason;
  g_atomic_int_set (&search->stop, 1);
  g_cond_broadcast (&search->cond);
  g_mutex_unlock (&search->lock);
  g_cancellable_cancel (search->cancel);
}

/* Stops the search if its time is up; TRUE when it is stopped. */
static gboolean
check_time_limit (PrismSearch *search)
{
  gboolean over;

  if (g_atomic_int_get (&search->stop))
    return TRUE;
  g_mutex_lock (&search->lock);
  over = search->time_limit_us > 0 &&
         elapsed_us_locked (search, g_get_monotonic_time ()) >= search->time_limit_us;
  g_mutex_unlock (&search->lock);
  if (over)
    stop_with (search, "time limit");
  return over;
}

static void
maybe_tick (PrismSearch *search, gboolean force)
{
  gint64 now = g_get_monotonic_time ();

  if (!force && now - search->last_tick_us < TICK_US)
    return;
  search->last_tick_us = now;
  if (search->observer.tick != NULL)
    search->observer.tick (search, search->observer_data);
}

/* Canonical operand pairs of a binary op or matmul: one operand must be newer
 * than the last op's inputs, a tensor is never paired with itself, and
 * commutative ops take their operands in order ((b, a) is the same op). */
static G_GNUC_NO_INLINE void
prune_repeated_operand (State *s, PrismOpKind kind, guint a)
{
  guint ins[2] = { a, a };

  PRUNE_STEP (s, PRISM_PRUNE_DUPLICATE, step_of (s->blk != NULL, kind, ins, 2, NULL));
}

/* Called for every pair: the pruning is out of line so that this inlines. */
static inline gboolean
operand_pair_allowed (State *s, PrismOpKind kind, guint a, guint b, guint low)
{
  if (MAX (a, b) < low)
    return FALSE;
  if (a == b)
    {
      prune_repeated_operand (s, kind, a);
      return FALSE;
    }
  return !(prism_op_kind_is_commutative (kind) && a > b);
}

/* TRUE when the search must unwind (stop or time limit).  Also waits while
 * paused and, in the split phase, calls the tick. */
static gboolean
should_abort (State *s)
{
  PrismSearch *search = s->search;

  if (s->aborted)
    return TRUE;
  if (g_atomic_int_get (&search->stop))
    goto abort;
  if ((++s->check_counter & 63) != 0)
    return FALSE;
  if (s->split_phase)
    maybe_tick (search, FALSE);
  if (g_atomic_int_get (&search->paused))
    {
      g_mutex_lock (&search->lock);
      while (g_atomic_int_get (&search->paused) && !g_atomic_int_get (&search->stop))
        {
          /* The split phase runs on the thread that ticks: it keeps
           * ticking while paused, or no command could resume it. */
          g_cond_wait_until (&search->cond, &search->lock, g_get_monotonic_time () + TICK_US);
          if (s->split_phase)
            {
              g_mutex_unlock (&search->lock);
              maybe_tick (search, FALSE);
              g_mutex_lock (&search->lock);
            }
        }
      g_mutex_unlock (&search->lock);
    }
  if (!check_time_limit (search))
    return FALSE;

abort:
  s->aborted = TRUE;
  prune (s, PRISM_PRUNE_TIME);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Tasks */

static void
task_free (Task *t)
{
  state_free (t->state);
  prism_sgraph_free (t->sgraph);
  g_free (t);
}

static void
task_run (gpointer data, gpointer user_data)
{
  Task *t = data;
  PrismSearch *search = user_data;
  gboolean completed = TRUE;

  g_cancellable_push_current (search->cancel);
  if (g_atomic_int_get (&search->stop))
    completed = FALSE;
  else if (t->sgraph != NULL)
    {
      if (search->observer.sgraph_found)
        search->observer.sgraph_found (search, t->sgraph, t->index, search->observer_data);
      /* Stopped while the sGraph's candidates were being decided: some
       * may not have been. */
      completed = !g_atomic_int_get (&search->stop);
    }
  else
    {
      State *s = t->state;

      s->task = t->index;
      s->split_phase = FALSE;
      if (s->blk != NULL)
        search_block (s);
      else
        search_kernel (s);
      flush_stats (s);
      completed = !s->aborted && !g_atomic_int_get (&search->stop);
    }
  g_cancellable_pop_current (search->cancel);
  if (search->observer.task_done)
    search->observer.task_done (search, t->index, completed, search->observer_data);

  g_mutex_lock (&search->lock);
  search->queued--;
  if (completed)
    search->stats.tasks_done++;
  g_cond_broadcast (&search->cond);
  g_mutex_unlock (&search->lock);
  task_free (t);
}

/* Hands a task to the pool, waiting while too many are queued so that the
 * split phase never runs far ahead of the workers.  The split phase's own
 * counts (the top of the tree, @from) are published first: it runs for the
 * whole search, and the live tree must not show deep states under an empty
 * root. */
static void
push_task (PrismSearch *search, State *from, Task *t)
{
  guint limit = MAX_QUEUED_PER_THREAD * g_thread_pool_get_max_threads (search->pool);

  flush_stats (from);
  t->index = search->next_task++;
  if (search->counting)
    {
      task_free (t);
      return;
    }
  g_mutex_lock (&search->lock);
  search->stats.n_tasks = search->next_task;
  if (search->skip != NULL && g_hash_table_contains (search->skip, GUINT_TO_POINTER (t->index)))
    {
      search->stats.tasks_done++;
      g_mutex_unlock (&search->lock);
      task_free (t);
      return;
    }
  while (search->queued >= limit && !g_atomic_int_get (&search->stop))
    {
      g_cond_wait_until (&search->cond, &search->lock, g_get_monotonic_time () + TICK_US);
      g_mutex_unlock (&search->lock);
      maybe_tick (search, FALSE);
      check_time_limit (search);
      g_mutex_lock (&search->lock);
    }
  g_mutex_unlock (&search->lock);
  /* Asked only once the queue has room, so that a process claims no more
   * than it is about to run (the others may still take the rest). */
  if (search->observer.claim_task != NULL && !g_atomic_int_get (&search->stop) &&
      !search->observer.claim_task (search, t->index, search->observer_data))
    {
      task_free (t);
      return;
    }
  g_mutex_lock (&search->lock);
  search->queued++;
  g_mutex_unlock (&search->lock);
  g_thread_pool_push (search->pool, t, NULL);
}

/* ------------------------------------------------------------------------ */
/* Found sGraphs */

static gboolean
shapes_match (State *s, guint tensor, guint out)
{
  PrismSearch *search = s->search;
  const PrismTensor *t = prism_graph_tensor (s->kg, tensor);
  gint64 shape[PRISM_MAX_DIMS];

  if (t->ndims != search->out_ndims[out] || !prism_tensor_get_shape (t, shape))
    return FALSE;
  for (guint d = 0; d < t->ndims; d++)
    if (!roles_match (kinfo (s, tensor)->role[d], search->output_roles[out][d]))
      return FALSE;
  return memcmp (shape, search->out_shape[out], t->ndims * sizeof (gint64)) == 0;
}

static void
report (State *s, guint *sinks, guint n)
{
  PrismSearch *search = s->search;
  guint n_ops = s->kg->ops->len, n_tensors = s->kg->tensors->len;
  PrismSGraph *sg;

  for (guint o = 0; o < n; o++)
    if (prism_graph_add_output (s->kg, sinks[o], search->out_names[o], NULL) < 0)
      {
        prism_graph_truncate (s->kg, n_ops, n_tensors);
        return;
      }
  sg = prism_sgraph_new (s->kg, s->constraints, search->opts.mode == PRISM_SEARCH_SYMBOLIC);
  prism_graph_truncate (s->kg, n_ops, n_tensors);
  s->stats.sgraphs++;

  if (s->split_phase)
    {
      Task *t = g_new0 (Task, 1);
      t->sgraph = sg;
      push_task (search, s, t);
      return;
    }
  if (search->observer.sgraph_found)
    search->observer.sgraph_found (search, sg, s->task, search->observer_data);
  prism_sgraph_free (sg);
}

/* Every permutation of the sinks whose shapes match the program's outputs. */
static void
report_permutations (State *s, guint *sinks, guint n, guint k)
{
  if (k == n)
    {
      report (s, sinks, n);
      return;
    }
  for (guint i = k; i < n; i++)
    {
      guint tmp = sinks[k];
      sinks[k] = sinks[i];
      sinks[i] = tmp;
      if (shapes_match (s, sinks[k], k))
        report_permutations (s, sinks, n, k + 1);
      sinks[i] = sinks[k];
      sinks[k] = tmp;
    }
}

/* The program's constants need not be read (an equivalent program may fold them). */
static gboolean
is_leaf_constant (State *s, guint t)
{
  const PrismTensor *tt = prism_graph_tensor (s->kg, t);

  return prism_graph_op (s->kg, (guint) tt->producer)->kind == PRISM_OP_CONSTANT;
}

/* A kernel-level state is complete when every input is read, at least one
 * custom kernel exists and the unread tensors are as many as the outputs. */
static void
check_complete (State *s)
{
  PrismSearch *search = s->search;
  guint sinks[PRISM_MAX_OP_OUTPUTS];
  guint n = 0;

  if (s->n_kernels == 0)
    return;
  for (guint t = 0; t < s->kg->tensors->len; t++)
    {
      if (kinfo (s, t)->uses > 0 || is_leaf_constant (s, t))
        continue;
      if (t < search->n_program_inputs || n == search->n_outputs)
        return;
      sinks[n++] = t;
    }
  if (n == search->n_outputs)
    report_permutations (s, sinks, n, 0);
}

/* ------------------------------------------------------------------------ */
/* Dimension roles.  An equivalent program made of these ops (no transposes)
 * keeps every index in its place: it may only combine elementwise, contract
 * or reduce dims that stand for the same index of the program.  Matching
 * roles instead of sizes is what keeps X's contraction dim from being
 * multiplied with W's output dim when both are 1024. */

static gboolean
role_in (guint64 set, guint8 r)
{
  return r == ROLE_ANY || (r < MAX_ROLES && (set & ((guint64) 1 << r)) != 0);
}

static gboolean
roles_match (guint8 a, guint8 b)
{
  return a == b || a == ROLE_ANY || b == ROLE_ANY;
}

/* The roles of the output of @kind on operands with @roles (ndims each);
 * FALSE when the op would identify two different roles, or reduce a role
 * the program does not reduce that way. */
static gboolean
op_roles (PrismSearch *search, PrismOpKind kind, guint8 roles[][PRISM_MAX_DIMS],
          const guint *ndims, guint n, const PrismOpAttrs *attrs, guint8 *out)
{
  guint nd = ndims[0], last = nd - 1;

  memcpy (out, roles[0], PRISM_MAX_DIMS);
  if (kind == PRISM_OP_MATMUL)
    {
      if (ndims[1] != nd || nd < 2)
        return TRUE;   /* the builder names the shape error */
      for (guint d = 0; d + 2 < nd; d++)
        if (!roles_match (roles[0][d], roles[1][d]))
          return FALSE;
      if (!roles_match (roles[0][last], roles[1][nd - 2]) ||
          !role_in (search->contract_roles, roles[0][last]))
        return FALSE;
      out[last] = roles[1][last];
      return TRUE;
    }
  if (n == 2 && prism_op_kind_is_binary (kind))
    {
      if (ndims[1] != nd)
        return TRUE;
      for (guint d = 0; d < nd; d++)
        {
          guint8 a = roles[0][d], b = roles[1][d];
          if (a == ROLE_ONE)
            out[d] = b;
          else if (b != ROLE_ONE && !roles_match (a, b))
            return FALSE;
        }
      return TRUE;
    }
  switch ((int) kind)
    {
    case PRISM_OP_SUM:
    case PRISM_OP_MAX:
    case PRISM_OP_MEAN:
      if (!role_in (search->sum_roles, roles[0][attrs->dim]))
        return FALSE;
      out[attrs->dim] = ROLE_ONE;
      return TRUE;
    case PRISM_OP_TRANSPOSE:
      for (guint d = 0; d < nd; d++)
        out[d] = roles[0][attrs->perm[d]];
      return TRUE;
    case PRISM_OP_RUNNING_MAX:   /* the max over the last dim it starts with */
    case PRISM_OP_ACCUM_SUM:
    case PRISM_OP_ACCUM_SUM_TODIMX:
    case PRISM_OP_ACCUM_SUM_RESCALE:
    case PRISM_OP_ACCUM_SUM_ONLINE:
      if (!role_in (search->sum_roles, roles[0][last]))
        return FALSE;
      out[last] = kind == PRISM_OP_ACCUM_SUM_TODIMX ? roles[0][last] : ROLE_ONE;
      return TRUE;
    case PRISM_OP_ACCUM_MEAN:
    case PRISM_OP_ACCUM_RMS:
      if (!role_in (search->norm_roles, roles[0][last]))
        return FALSE;
      out[last] = ROLE_ONE;
      return TRUE;
    case PRISM_OP_RMS_NORM:
      for (guint d = nd - MIN (attrs->norm_dims, nd); d < nd; d++)
        if (!role_in (search->norm_roles, roles[0][d]))
          return FALSE;
      return TRUE;
    default:
      return TRUE;
    }
}

/* The role of dim @d of block tensor @t (from the input dim it comes from). */
static guint8
block_role (State *s, guint t, guint d)
{
  Block *b = s->blk;
  PrismDimRef r = binfo (b, t)->src[d];

  if (r.input == PRISM_DIM_REF_NONE)
    return ROLE_ONE;
  return kinfo (s, b->in[r.input])->role[r.dim];
}

/* The meaning of an op's output in the untiled program: the op and its
 * operands' meanings, reductions named by the role they reduce, a plain
 * accumulator transparent.  Two tensors of one graph with the same meaning
 * (and, in a block, on the same side of the loop) compute the same value:
 * a graph holding both is a larger copy of one the search builds anyway. */
static guint64
sem_of (PrismOpKind kind, const guint64 *operands, guint n, int attr, guint8 reduced_role)
{
  guint64 h;

  /* The online accumulators mean their closed form: the plain ones with
   * the final max in their operand. */
  if (kind == PRISM_OP_ACCUM || kind == PRISM_OP_ACCUM_ONLINE)
    return operands[0];
  if (kind == PRISM_OP_ACCUM_SUM_ONLINE)
    {
      kind = PRISM_OP_ACCUM_SUM;
      n = 1;
    }
  h = hash_add (0x53454d, (guint64) kind * 977 + (guint64) (attr + 3));
  if (prism_op_kind_is_reduction (kind) || kind == PRISM_OP_ACCUM_SUM ||
      kind == PRISM_OP_ACCUM_MEAN || kind == PRISM_OP_ACCUM_RMS || kind == PRISM_OP_RUNNING_MAX)
    {
      /* A sum is a sum, whether the loop or the block does it. */
      if (kind == PRISM_OP_ACCUM_SUM)
        h = hash_add (0x53454d, (guint64) PRISM_OP_SUM * 977);
      h = hash_add (h, reduced_role);
    }
  if (n == 2 && prism_op_kind_is_commutative (kind) && operands[0] > operands[1])
    return hash_add (hash_add (h, operands[1]), operands[0]);
  for (guint i = 0; i < n; i++)
    h = hash_add (h, operands[i]);
  return h;
}

/* ------------------------------------------------------------------------ */
/* Kernel level */

static gboolean
oracle_ok (State *s, const PrismGraph *block, const guint *block_inputs, guint tensor)
{
  PrismSearch *search = s->search;

  if (search->opts.check_func != NULL)
    return search->opts.check_func (s->kg, block, block_inputs, tensor, search->opts.check_data);
  if (search->opts.oracle != NULL)
    return prism_oracle_check (search->opts.oracle, s->kg, block, block_inputs, tensor);
  return TRUE;
}

/* Maps a cached failure to its prune reason; returns FALSE on a miss or OK. */
static gboolean
cached_failure (guint8 v, PrismPruneReason *reason)
{
  switch (v)
    {
    case CACHE_SHAPE:
      *reason = PRISM_PRUNE_SHAPE;
      return TRUE;
    case CACHE_LOOP:
      *reason = PRISM_PRUNE_LOOP;
      return TRUE;
    case CACHE_EXPR:
      *reason = PRISM_PRUNE_EXPR;
      return TRUE;
    default:
      return FALSE;
    }
}

static void
try_kernel_op (State *s, PrismOpKind kind, const guint *ins, guint n, const PrismOpAttrs *attrs,
               int attr)
{
  PrismSearch *search = s->search;
  guint n_ops = s->kg->ops->len, n_tensors = s->kg->tensors->len;
  OpKey key, saved = s->klast;
  guint8 roles[PRISM_MAX_DIMS];
  guint64 h, sem;
  guint8 cached;
  PrismPruneReason failure;
  int t;

  opkey_set (&key, kind, ins, n, attr, 0);
  if (opkey_compare (&key, &s->klast) <= 0)
    {
      PRUNE_STEP (s, PRISM_PRUNE_ORDER, step_of (FALSE, kind, ins, n, attrs));
      return;
    }
  {
    guint8 in_roles[2][PRISM_MAX_DIMS];
    guint nds[2];
    for (guint i = 0; i < n; i++)
      {
        memcpy (in_roles[i], kinfo (s, ins[i])->role, PRISM_MAX_DIMS);
        nds[i] = prism_graph_tensor (s->kg, ins[i])->ndims;
      }
    if (!op_roles (search, kind, in_roles, nds, n, attrs, roles))
      {
        PRUNE_STEP (s, PRISM_PRUNE_SHAPE, step_of (FALSE, kind, ins, n, attrs));
        return;
      }
  }
  {
    guint64 operands[2];
    gboolean reduction = prism_op_kind_is_reduction (kind);
    guint8 reduced = reduction ? kinfo (s, ins[0])->role[attr] : 0;
    for (guint i = 0; i < n; i++)
      operands[i] = kinfo (s, ins[i])->sem;
    sem = sem_of (kind, operands, n, reduction ? 0 : attr, reduced);
    for (guint t2 = 0; t2 < s->kg->tensors->len; t2++)
      if (kinfo (s, t2)->sem == sem)
        {
          PRUNE_STEP (s, PRISM_PRUNE_DUPLICATE,
                      step_arg (step_of (FALSE, kind, ins, n, attrs), t2));
          return;
        }
  }
  h = hash_add (0x4b4e, (guint64) kind * 131 + (guint64) (attr + 7));
  for (guint i = 0; i < n; i++)
    h = hash_add (h, kinfo (s, ins[i])->hash);
  cached = cache_get (search->cache, search->tag, h);
  if (cached_failure (cached, &failure))
    {
      PRUNE_STEP (s, failure, step_of (FALSE, kind, ins, n, attrs));
      return;
    }

  t = prism_graph_add (s->kg, kind, ins, n, attrs, NULL);
  if (t < 0)
    {
      prism_graph_truncate (s->kg, n_ops, n_tensors);
      cache_put (search->cache, search->tag, h, CACHE_SHAPE);
      PRUNE_STEP (s, PRISM_PRUNE_SHAPE, step_of (FALSE, kind, ins, n, attrs));
      return;
    }
  if (cached != CACHE_OK)
    {
      if (!oracle_ok (s, NULL, NULL, (guint) t))
        {
          PRUNE_STEP (s, PRISM_PRUNE_EXPR,
                      step_arg (step_added (step_of (FALSE, kind, ins, n, attrs), (int) n_ops), t));
          prism_graph_truncate (s->kg, n_ops, n_tensors);
          cache_put (search->cache, search->tag, h, CACHE_EXPR);
          return;
        }
      cache_put (search->cache, search->tag, h, CACHE_OK);
    }

  {
    KInfo ki = { h, sem, 0, { 0, } };
    memcpy (ki.role, roles, PRISM_MAX_DIMS);
    g_array_append_val (s->kinfo, ki);
  }
  for (guint i = 0; i < n; i++)
    kinfo (s, ins[i])->uses++;
  s->klast = key;
  s->n_kops++;
  s->n_total++;
  s->depth++;
  count_state (s);

  search_kernel (s);

  s->depth--;
  s->n_total--;
  s->n_kops--;
  s->klast = saved;
  for (guint i = 0; i < n; i++)
    kinfo (s, ins[i])->uses--;
  g_array_set_size (s->kinfo, n_tensors);
  prism_graph_truncate (s->kg, n_ops, n_tensors);
}

static gboolean
size_in (const gint64 *sizes, guint n, gint64 v)
{
  for (guint i = 0; i < n; i++)
    if (sizes[i] == v)
      return TRUE;
  return FALSE;
}

/* Whether transposing tensor @t of @g by @perm gives back the operand of
 * the transpose that made @t (a copy of a tensor the graph has). */
static gboolean
undoes_transpose (const PrismGraph *g, guint t, const int *perm)
{
  const PrismTensor *tt = prism_graph_tensor (g, t);
  const PrismOp *op;

  if (tt->producer < 0)
    return FALSE;
  op = prism_graph_op (g, (guint) tt->producer);
  if (op->kind != PRISM_OP_TRANSPOSE)
    return FALSE;
  /* Output dim d of the second is dim perm[d] of @t, i.e. dim
   * op->perm[perm[d]] of the first's operand. */
  for (guint d = 0; d < tt->ndims; d++)
    if (op->attrs.perm[perm[d]] != (int) d)
      return FALSE;
  return TRUE;
}

/* Tries every operand choice of one op kind whose canonical key can still
 * follow the last op's: its largest operand id must be at least the last
 * op's, so only candidates involving a tensor that recent are generated. */
static void
kernel_ops (State *s)
{
  PrismSearch *search = s->search;
  guint nt = s->kg->tensors->len;
  guint low = s->klast.none ? 0 : s->klast.max_id;

  if (s->n_kops >= search->opts.max_kernel_ops || s->n_total >= search->opts.max_total_ops)
    {
      PRUNE_STEP (s, PRISM_PRUNE_OPS, step_named (FALSE, N_("another kernel-level op")));
      return;
    }
  for (guint k = 0; k < search->opts.n_kernel_ops; k++)
    {
      PrismOpKind kind = search->kernel_ops[k];
      PrismOpAttrs attrs;

      prism_op_attrs_init (&attrs);
      /* The rms_norms the search adds normalise as the program's do. */
      attrs.eps = search->norm_eps;
      for (guint a = 0; a < nt; a++)
        {
          const PrismTensor *ta = prism_graph_tensor (s->kg, a);

          if (should_abort (s))
            return;
          if (prism_op_kind_is_binary (kind) || kind == PRISM_OP_MATMUL)
            {
              for (guint b = 0; b < nt; b++)
                {
                  guint ins[2] = { a, b };
                  if (!operand_pair_allowed (s, kind, a, b, low))
                    continue;
                  try_kernel_op (s, kind, ins, 2, &attrs, 0);
                }
              continue;
            }
          if (a < low)
            continue;
          if (prism_op_kind_is_unary (kind))
            try_kernel_op (s, kind, &a, 1, &attrs, 0);
          else if (kind == PRISM_OP_RMS_NORM)
            {
              if (!size_in (search->norm_sizes, search->n_norm_sizes,
                            prism_dim_get_const (ta->dims[ta->ndims - 1])))
                {
                  PRUNE_STEP (s, PRISM_PRUNE_SHAPE,
                              step_hint (step_of (FALSE, kind, &a, 1, NULL),
                                         N_("the program normalizes over no dim of this size")));
                }
              else
                try_kernel_op (s, kind, &a, 1, &attrs, 1);
            }
          else if (prism_op_kind_is_reduction (kind))
            {
              for (guint d = 0; d < ta->ndims; d++)
                {
                  if (prism_dim_is_const (ta->dims[d]) && ta->dims[d]->value == 1)
                    continue;
                  if (!size_in (search->sum_sizes, search->n_sum_sizes,
                                prism_dim_get_const (ta->dims[d])))
                    {
                      attrs.dim = (int) d;
                      PRUNE_STEP (s, PRISM_PRUNE_SHAPE,
                                  step_hint (step_of (FALSE, kind, &a, 1, &attrs),
                                             N_("the program sums over no dim of this size")));
                      continue;
                    }
                  attrs.dim = (int) d;
                  try_kernel_op (s, kind, &a, 1, &attrs, (int) d);
                }
              attrs.dim = 0;
            }
          else if (kind == PRISM_OP_TRANSPOSE)
            {
              /* Only the program's own permutations. */
              for (guint k2 = 0; k2 < search->n_perms; k2++)
                {
                  if (search->perm_ndims[k2] != ta->ndims)
                    continue;
                  memcpy (attrs.perm, search->perms[k2], sizeof attrs.perm);
                  if (undoes_transpose (s->kg, a, attrs.perm))
                    {
                      PRUNE_STEP (s, PRISM_PRUNE_TRIVIAL,
                                  step_hint (step_of (FALSE, kind, &a, 1, &attrs),
                                             N_("it undoes the transpose that made its operand")));
                      continue;
                    }
                  try_kernel_op (s, kind, &a, 1, &attrs, (int) (k2 + 1) * 64);
                }
              prism_op_attrs_init (&attrs);
              attrs.eps = search->norm_eps;
            }
        }
    }
}

/* Block level: opening a kernel ------------------------------------------- */

static Block *
block_new (PrismGraph *bg, const guint *ins, guint n)
{
  Block *b = g_new0 (Block, 1);

  b->bg = bg;
  memcpy (b->in, ins, n * sizeof (guint));
  b->n_in = n;
  b->info = g_array_new (FALSE, TRUE, sizeof (BInfo));
  b->eq = g_array_new (FALSE, FALSE, sizeof (PrismDimEquality));
  b->last.none = TRUE;
  return b;
}

/* Adds the block INPUT ops and searches the kernel's body. */
static void
open_block (State *s, PrismGraph *bg, const guint *ins, guint n, int imaps[][PRISM_MAX_GRID_DIMS],
            const int *fmaps)
{
  PrismSearch *search = s->search;
  Block *b, *saved = s->blk;
  guint64 h = hash_add (0x424c, bg->grid_ndims);

  for (guint p = 0; p < bg->grid_ndims; p++)
    h = hash_dim (h, bg->grid[p]);
  h = hash_dim (h, bg->forloop);
  b = block_new (bg, ins, n);
  b->input_hash = h;
  for (guint i = 0; i < n; i++)
    {
      const PrismTensor *src = prism_graph_tensor (s->kg, ins[i]);
      BInfo bi = { 0, };
      guint64 th = hash_add (hash_add (h, kinfo (s, ins[i])->hash), (guint64) fmaps[i] + 5);

      for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
        th = hash_add (th, (guint64) imaps[i][p] + 5);
      if (prism_block_graph_add_input (bg, i, src->ndims, src->dims, src->dtype, imaps[i], fmaps[i],
                                       NULL) < 0)
        {
          PRUNE_STEP (s, PRISM_PRUNE_SHAPE,
                      step_hint (step_of (FALSE, PRISM_OP_KERNEL, ins, n, NULL),
                                 N_("an input's tile does not fit the grid and loop")));
          block_free (b);
          return;
        }
      bi.hash = th;
      bi.sem = kinfo (s, ins[i])->sem & ~(guint64) 1;
      for (guint d = 0; d < src->ndims && i < 8; d++)
        bi.reads |= (guint32) 1 << (i * PRISM_MAX_DIMS + d);
      for (guint d = 0; d < PRISM_MAX_DIMS; d++)
        {
          bi.src[d].input = d < src->ndims ? (guint8) i : PRISM_DIM_REF_NONE;
          bi.src[d].dim = (guint8) d;
        }
      g_array_append_val (b->info, bi);
      b->n_sinks++;
      b->n_open_sinks++;
    }
  b->n_ops = n;
  if (b->n_open_sinks > search->opts.max_block_ops - MIN (b->n_ops, search->opts.max_block_ops) ||
      b->n_open_sinks > search->opts.max_total_ops - MIN (s->n_total, search->opts.max_total_ops))
    {
      PRUNE_STEP (s, PRISM_PRUNE_OPS, step_of (FALSE, PRISM_OP_KERNEL, ins, n, NULL));
      block_free (b);
      return;
    }
  if (search->opts.mode == PRISM_SEARCH_ENUMERATIVE)
    {
      guint64 smem;
      if (!prism_block_graph_smem_bytes (bg, NULL, 0, &smem) || smem > search->opts.smem_limit)
        {
          PRUNE_STEP (s, PRISM_PRUNE_SMEM,
                      step_arg (step_of (FALSE, PRISM_OP_KERNEL, ins, n, NULL), (gint64) smem));
          block_free (b);
          return;
        }
    }
  for (guint i = 0; i < n; i++)
    kinfo (s, ins[i])->uses++;
  s->n_kops++;
  s->n_kernels++;
  s->depth++;
  s->blk = b;
  count_state (s);

  search_block (s);

  s->blk = saved;
  s->depth--;
  s->n_kernels--;
  s->n_kops--;
  for (guint i = 0; i < n; i++)
    kinfo (s, ins[i])->uses--;
  block_free (b);
}

static void
open_symbolic (State *s, const guint *ins, guint n)
{
  PrismSearch *search = s->search;
  guint slot = s->n_kernels, k = 1;
  guint base = search->var_base + 4 * slot;
  PrismDim *grid[PRISM_MAX_GRID_DIMS];
  g_autoptr(PrismDim) f = prism_dim_var (base + 3);
  int imaps[PRISM_MAX_OP_INPUTS][PRISM_MAX_GRID_DIMS];
  int fmaps[PRISM_MAX_OP_INPUTS];
  PrismGraph *bg;

  /* One block graph with as many grid axes as the inputs have dims (at most
   * three); the map instantiation collapses the axes no map uses. */
  for (guint i = 0; i < n; i++)
    k = MAX (k, prism_graph_tensor (s->kg, ins[i])->ndims);
  k = MIN (k, search->opts.max_grid_dims);
  for (guint p = 0; p < k; p++)
    grid[p] = prism_dim_var (base + p);
  bg = prism_block_graph_new (k, grid, search->opts.block_threads, f);
  for (guint p = 0; p < k; p++)
    prism_dim_unref (grid[p]);
  prism_block_graph_set_symbolic_maps (bg, TRUE);
  for (guint i = 0; i < n; i++)
    {
      fmaps[i] = PRISM_MAP_UNKNOWN;
      for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
        imaps[i][p] = p < k ? PRISM_MAP_UNKNOWN : PRISM_MAP_REPLICATE;
    }
  open_block (s, bg, ins, n, imaps, fmaps);
}

/* Enumerative mode: the concrete grids, maps and loop ranges of one kernel. */
typedef struct
{
  State *s;
  const guint *ins;
  guint n;
  guint k;
  int imaps[PRISM_MAX_OP_INPUTS][PRISM_MAX_GRID_DIMS];
  int fmaps[PRISM_MAX_OP_INPUTS];
  gint64 grid[PRISM_MAX_GRID_DIMS];
  GArray *cands[PRISM_MAX_GRID_DIMS + 1];
} Enum;

static gint64
gcd64 (gint64 a, gint64 b)
{
  while (b != 0)
    {
      gint64 t = a % b;
      a = b;
      b = t;
    }
  return a;
}

static gint64
input_dim (Enum *e, guint i, guint d)
{
  return prism_dim_get_const (prism_graph_tensor (e->s->kg, e->ins[i])->dims[d]);
}

static void
enum_open (Enum *e, gint64 forloop)
{
  PrismGraph *bg = prism_block_graph_new_const (e->k, e->grid, e->s->search->opts.block_threads,
                                                forloop);
  open_block (e->s, bg, e->ins, e->n, e->imaps, e->fmaps);
}

static void
enum_loop (Enum *e)
{
  PrismSearch *search = e->s->search;
  gint64 g = 0;
  gint64 blocks = 1;

  for (guint p = 0; p < e->k; p++)
    blocks *= e->grid[p];
  if (blocks > search->opts.max_blocks)
    {
      PRUNE_STEP (e->s, PRISM_PRUNE_SHAPE,
                  step_hint (step_of (FALSE, PRISM_OP_KERNEL, e->ins, e->n, NULL),
                             N_("more thread blocks than a kernel may have")));
      return;
    }
  for (guint i = 0; i < e->n; i++)
    if (e->fmaps[i] >= 0)
      {
        gint64 v = input_dim (e, i, (guint) e->fmaps[i]);
        for (guint p = 0; p < e->k; p++)
          if (e->imaps[i][p] == e->fmaps[i])
            v = v % e->grid[p] == 0 ? v / e->grid[p] : 1;
        g = gcd64 (g, v);
      }
  if (g == 0)
    {
      enum_open (e, 1);
      return;
    }
  if (search->opts.size_candidates)
    search->opts.size_candidates (g, TRUE, e->cands[PRISM_MAX_GRID_DIMS]);
  else
    prism_search_size_candidates (g, TRUE, e->cands[PRISM_MAX_GRID_DIMS]);
  {
    g_autoptr(GArray) fs = g_array_copy (e->cands[PRISM_MAX_GRID_DIMS]);
    for (guint j = 0; j < fs->len && !should_abort (e->s); j++)
      enum_open (e, g_array_index (fs, gint64, j));
  }
}

static void
enum_grid (Enum *e, guint p)
{
  PrismSearch *search = e->s->search;
  g_autoptr(GArray) values = NULL;
  gint64 g = 0;

  if (p == e->k)
    {
      enum_loop (e);
      return;
    }
  for (guint i = 0; i < e->n; i++)
    if (e->imaps[i][p] >= 0)
      g = gcd64 (g, input_dim (e, i, (guint) e->imaps[i][p]));
  values = g_array_new (FALSE, FALSE, sizeof (gint64));
  if (search->opts.size_candidates)
    search->opts.size_candidates (g, FALSE, values);
  else
    prism_search_size_candidates (g, FALSE, values);
  for (guint j = 0; j < values->len && !should_abort (e->s); j++)
    {
      e->grid[p] = g_array_index (values, gint64, j);
      enum_grid (e, p + 1);
    }
}

/* Compares the maps of grid axes p and q over all inputs. */
static int
axis_column_compare (Enum *e, guint p, guint q)
{
  for (guint i = 0; i < e->n; i++)
    if (e->imaps[i][p] != e->imaps[i][q])
      return e->imaps[i][p] < e->imaps[i][q] ? -1 : 1;
  return 0;
}

static void
enum_maps (Enum *e, guint i)
{
  guint nd;

  if (i == e->n)
    {
      /* Every axis partitions some input (else it is the same kernel with
       * fewer axes), and the axes are in canonical (decreasing) order. */
      for (guint p = 0; p < e->k; p++)
        {
          gboolean used = FALSE;
          for (guint j = 0; j < e->n; j++)
            used |= e->imaps[j][p] >= 0;
          if (!used)
            return;
          if (p > 0 && axis_column_compare (e, p - 1, p) <= 0)
            return;
        }
      enum_grid (e, 0);
      return;
    }
  nd = prism_graph_tensor (e->s->kg, e->ins[i])->ndims;
  /* Each axis: replicated or one dim (> 1) not mapped by another axis. */
  for (guint code = 0; code < 125; code++)
    {
      guint c = code;
      gboolean ok = TRUE;

      for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++, c /= 5)
        {
          int m = (int) (c % 5) - 1;
          if (p >= e->k)
            {
              ok &= m == -1;
              e->imaps[i][p] = PRISM_MAP_REPLICATE;
              continue;
            }
          if (m >= (int) nd || (m >= 0 && input_dim (e, i, (guint) m) <= 1))
            ok = FALSE;
          for (guint q = 0; q < p && ok; q++)
            if (m >= 0 && e->imaps[i][q] == m)
              ok = FALSE;
          e->imaps[i][p] = m;
        }
      if (!ok)
        continue;
      for (int f = -1; f < (int) nd; f++)
        {
          if (f >= 0 && input_dim (e, i, (guint) f) <= 1)
            continue;
          e->fmaps[i] = f;
          enum_maps (e, i + 1);
          if (should_abort (e->s))
            return;
        }
    }
}

static void
open_enumerative (State *s, const guint *ins, guint n)
{
  PrismSearch *search = s->search;
  Enum e = { s, ins, n, 0, };
  guint max_rank = 1;

  for (guint i = 0; i < n; i++)
    max_rank = MAX (max_rank, prism_graph_tensor (s->kg, ins[i])->ndims);
  for (guint p = 0; p <= PRISM_MAX_GRID_DIMS; p++)
    e.cands[p] = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (e.k = 1; e.k <= MIN (max_rank, search->opts.max_grid_dims); e.k++)
    enum_maps (&e, 0);
  for (guint p = 0; p <= PRISM_MAX_GRID_DIMS; p++)
    g_array_unref (e.cands[p]);
}

static void
kernel_open (State *s)
{
  PrismSearch *search = s->search;
  guint nt = s->kg->tensors->len;
  guint max_in = MIN (search->opts.max_kernel_inputs, PRISM_MAX_OP_INPUTS);
  guint64 constants = 0;

  if (s->n_kernels >= search->opts.max_kernels || s->n_kops >= search->opts.max_kernel_ops)
    {
      PRUNE_STEP (s, PRISM_PRUNE_OPS, step_named (FALSE, N_("open a custom kernel")));
      return;
    }
  /* The program's constants do not count toward the limit: a kernel reads
   * one value of them (the one-kernel safe attention reads Q, K, V and
   * 1/√d). */
  for (guint t = 0; t < MIN (nt, 20); t++)
    if (is_leaf_constant (s, t))
      constants |= (guint64) 1 << t;
  /* Every subset of the tensors: larger ones first, then by bit mask. */
  for (guint size = MIN (MIN (max_in + (guint) __builtin_popcountll (constants), PRISM_MAX_OP_INPUTS),
                         MIN (nt, 20));
       size >= 1; size--)
  for (guint64 mask = 1; mask < ((guint64) 1 << MIN (nt, 20)); mask++)
    {
      guint ins[PRISM_MAX_OP_INPUTS], n = 0;
      OpKey key;

      if ((guint) __builtin_popcountll (mask) != size ||
          (guint) __builtin_popcountll (mask & ~constants) > max_in)
        continue;
      for (guint t = 0; t < nt; t++)
        if (mask & ((guint64) 1 << t))
          ins[n++] = t;
      if (should_abort (s))
        return;
      /* The body is not known yet: compare without it; a kernel with the
       * same inputs as the last op is ordered by its body when it closes. */
      opkey_set (&key, PRISM_OP_KERNEL, ins, n, 0, 0);
      key.body = G_MAXUINT64;
      if (opkey_compare (&key, &s->klast) <= 0)
        {
          PRUNE_STEP (s, PRISM_PRUNE_ORDER, step_of (FALSE, PRISM_OP_KERNEL, ins, n, NULL));
          continue;
        }
      if (search->opts.mode == PRISM_SEARCH_SYMBOLIC)
        open_symbolic (s, ins, n);
      else
        open_enumerative (s, ins, n);
    }
}

static void
search_kernel (State *s)
{
  PrismSearch *search = s->search;

  if (should_abort (s))
    return;
  if (s->split_phase && s->depth >= search->opts.split_depth)
    {
      Task *t = g_new0 (Task, 1);
      t->state = state_copy (s);
      push_task (search, s, t);
      return;
    }
  check_complete (s);
  /* Custom kernels before predefined ops, and kernels over more tensors
   * first: the whole program fused into one kernel is met early, which is
   * where the best candidates usually are (the order of the tree changes,
   * not its contents). */
  kernel_open (s);
  kernel_ops (s);
}

/* ------------------------------------------------------------------------ */
/* Block level: ops */

static gboolean
dim_is_one (const PrismDim *d)
{
  return prism_dim_is_const (d) && d->value == 1;
}

static void
add_equality (Block *b, PrismDimRef x, PrismDimRef y)
{
  PrismDimEquality e;

  if (x.input == PRISM_DIM_REF_NONE || y.input == PRISM_DIM_REF_NONE ||
      (x.input == y.input && x.dim == y.dim))
    return;
  if (x.input > y.input || (x.input == y.input && x.dim > y.dim))
    {
      PrismDimRef t = x;
      x = y;
      y = t;
    }
  e.a = x;
  e.b = y;
  g_array_append_val (b->eq, e);
}

static void
forbid_split (Block *b, PrismDimRef r, guint8 flags)
{
  if (r.input != PRISM_DIM_REF_NONE)
    b->no_split[r.input][r.dim] |= flags;
}

/* Records where each dim of the new tensor @t comes from and which input
 * dims the op matched (symbolic dimension matching). */
static void
track_dims (Block *b, PrismOpKind kind, const guint *ins, guint n, const PrismOpAttrs *attrs,
            guint t, BInfo *out)
{
  const PrismGraph *g = b->bg;
  const PrismTensor *tt = prism_graph_tensor (g, t);
  const PrismTensor *ta = prism_graph_tensor (g, ins[0]);
  const BInfo *ia = binfo (b, ins[0]);
  guint nd = tt->ndims, last = nd - 1;

  memcpy (out->src, ia->src, sizeof out->src);
  if (kind == PRISM_OP_MATMUL)
    {
      const BInfo *ib = binfo (b, ins[1]);
      for (guint d = 0; d + 2 < nd; d++)
        add_equality (b, ia->src[d], ib->src[d]);
      add_equality (b, ia->src[last], ib->src[nd - 2]);
      out->src[last] = ib->src[last];
    }
  else if (prism_op_kind_is_binary (kind))
    {
      const PrismTensor *tb = prism_graph_tensor (g, ins[1]);
      const BInfo *ib = binfo (b, ins[1]);
      for (guint d = 0; d < nd; d++)
        {
          if (dim_is_one (ta->dims[d]))
            out->src[d] = ib->src[d];
          else if (!dim_is_one (tb->dims[d]))
            add_equality (b, ia->src[d], ib->src[d]);
        }
    }
  else if (kind == PRISM_OP_SUM)
    out->src[attrs->dim].input = PRISM_DIM_REF_NONE;
  else if (kind == PRISM_OP_MAX || kind == PRISM_OP_MEAN)
    {
      /* Maxima and means of parts of the dim do not combine into the
       * whole one (the output map sums blocks, the plain accumulator sums
       * iterations): the block sees the whole dim. */
      forbid_split (b, ia->src[attrs->dim], PRISM_SPLIT_NO_GRID | PRISM_SPLIT_NO_LOOP);
      out->src[attrs->dim].input = PRISM_DIM_REF_NONE;
    }
  else if (kind == PRISM_OP_RMS_NORM)
    {
      /* A norm over a partitioned dim would see only part of the row. */
      for (guint d = nd - attrs->norm_dims; d < nd; d++)
        forbid_split (b, ia->src[d], PRISM_SPLIT_NO_GRID | PRISM_SPLIT_NO_LOOP);
    }
  else if (kind == PRISM_OP_RUNNING_MAX)
    {
      /* The loop may split the row (the running max and the online
       * accumulators combine the iterations' parts); blocks cannot. */
      forbid_split (b, ia->src[last], PRISM_SPLIT_NO_GRID);
      out->src[last].input = PRISM_DIM_REF_NONE;
    }
  else if (kind == PRISM_OP_ACCUM_SUM || kind == PRISM_OP_ACCUM_MEAN ||
           kind == PRISM_OP_ACCUM_RMS || kind == PRISM_OP_ACCUM_SUM_RESCALE ||
           kind == PRISM_OP_ACCUM_SUM_ONLINE)
    {
      /* Means and rms of a grid-partitioned row cannot be combined across
       * blocks; sums can (the output map sums the blocks). */
      if (kind == PRISM_OP_ACCUM_MEAN || kind == PRISM_OP_ACCUM_RMS)
        forbid_split (b, ia->src[last], PRISM_SPLIT_NO_GRID);
      out->src[last].input = PRISM_DIM_REF_NONE;
    }
  else if (kind == PRISM_OP_ACCUM_SUM_TODIMX)
    out->src[last].input = PRISM_DIM_REF_NONE;
  else if (kind == PRISM_OP_TRANSPOSE)
    for (guint d = 0; d < nd; d++)
      out->src[d] = ia->src[attrs->perm[d]];
}

static guint32
ref_bit (PrismDimRef r)
{
  if (r.input == PRISM_DIM_REF_NONE || r.input >= 8)
    return 0;
  return (guint32) 1 << (r.input * PRISM_MAX_DIMS + r.dim);
}

static void
forbid_bits (Block *b, guint32 bits, guint8 flags)
{
  for (guint x = 0; x < 32; x++)
    if (bits & ((guint32) 1 << x))
      b->no_split[x / PRISM_MAX_DIMS][x % PRISM_MAX_DIMS] |= flags;
}

/* Linearity: a reduction over a split dim (a matmul's contraction, a sum)
 * leaves partial results that the loop accumulator or the output's sum
 * over blocks completes later; only linear ops may come in between.  A
 * nonlinear op on a partial result forbids splitting what it is partial
 * over: by the loop and the grid before the accumulator, by the grid after
 * it (the loop's part is complete by then). */
static void
track_partials (Block *b, PrismOpKind kind, const guint *ins, guint n, const PrismOpAttrs *attrs,
                BInfo *out)
{
  const PrismGraph *g = b->bg;
  const PrismTensor *ta = prism_graph_tensor (g, ins[0]);
  const BInfo *ia = binfo (b, ins[0]);
  guint32 pa = ia->partial, pb = n > 1 ? binfo (b, ins[1])->partial : 0;
  guint8 flags = ta->after_accum ? PRISM_SPLIT_NO_GRID : PRISM_SPLIT_NO_GRID | PRISM_SPLIT_NO_LOOP;
  guint nd = ta->ndims, last = nd - 1;

  switch ((int) kind)
    {
    case PRISM_OP_MATMUL:
      if (pa != 0 && pb != 0)
        {
          forbid_bits (b, pa | pb, flags);
          out->partial = 0;
        }
      else
        out->partial = pa | pb;
      out->partial |= ref_bit (ia->src[last]) | ref_bit (binfo (b, ins[1])->src[nd - 2]);
      break;
    case PRISM_OP_SUM:
      out->partial = pa | ref_bit (ia->src[attrs->dim]);
      break;
    case PRISM_OP_ACCUM:
      out->partial = pa;
      break;
    case PRISM_OP_ACCUM_SUM:
      out->partial = pa | ref_bit (ia->src[last]);
      break;
    case PRISM_OP_ACCUM_ONLINE:
    case PRISM_OP_ACCUM_SUM_ONLINE:
      /* Each block rescales to its own max: what the loop completes here
       * cannot be split by the grid too (the blocks' sums would mix maxima). */
      out->partial = pa | (kind == PRISM_OP_ACCUM_SUM_ONLINE ? ref_bit (ia->src[last]) : 0);
      forbid_bits (b, out->partial, PRISM_SPLIT_NO_GRID);
      break;
    case PRISM_OP_NEG:
    case PRISM_OP_TRANSPOSE:
      /* Linear; the partial bits name source dims, not positions. */
      out->partial = pa;
      break;
    case PRISM_OP_ADD:
    case PRISM_OP_SUB:
      /* A partial plus a whole would add the whole once per part. */
      if (pa != pb)
        forbid_bits (b, pa ^ pb, flags);
      out->partial = pa & pb;
      break;
    case PRISM_OP_MUL:
      if (pa != 0 && pb != 0)
        {
          forbid_bits (b, pa | pb, flags);
          out->partial = 0;
        }
      else
        out->partial = pa | pb;
      break;
    case PRISM_OP_DIV:
      /* Linear in the dividend only. */
      if (pb != 0)
        forbid_bits (b, pa | pb, flags);
      out->partial = pb != 0 ? 0 : pa;
      break;
    default:
      /* exp, square, sqrt, silu, gelu, relu, pow, rms_norm, accum_rms, accum_mean … */
      forbid_bits (b, pa | pb, flags);
      out->partial = 0;
      break;
    }
}

/* Fewest ops that can still turn the open sinks into at most max outputs:
 * each op removes at most one sink that is not after an accumulator, and
 * merges at most two sinks into one. */
/* Ops the open kernel may still add: its own limit and the whole graph's. */
static guint
ops_left (State *s)
{
  PrismSearch *search = s->search;
  guint block = search->opts.max_block_ops - MIN (s->blk->n_ops, search->opts.max_block_ops);
  guint total = search->opts.max_total_ops - MIN (s->n_total, search->opts.max_total_ops);

  return MIN (block, total);
}

static guint
ops_needed (PrismSearch *search, const Block *b)
{
  guint merge = b->n_sinks > search->opts.max_block_outputs
                ? b->n_sinks - search->opts.max_block_outputs : 0;
  return MAX (b->n_open_sinks, merge);
}

/* The search's one step for a running max of @a over its last dim: a block
 * max, its accum_max and the running_max that reads it in the loop.
 * Returns the running max's tensor, or -1 (the graph is then truncated by
 * the caller). */
static int
add_running_max (PrismGraph *bg, guint a)
{
  PrismOpAttrs attrs;
  int m, acc;
  guint in[1];

  prism_op_attrs_init (&attrs);
  attrs.dim = (int) prism_graph_tensor (bg, a)->ndims - 1;
  in[0] = a;
  if ((m = prism_graph_add (bg, PRISM_OP_MAX, in, 1, &attrs, NULL)) < 0)
    return -1;
  in[0] = (guint) m;
  if ((acc = prism_graph_add (bg, PRISM_OP_ACCUM_MAX, in, 1, NULL, NULL)) < 0)
    return -1;
  in[0] = (guint) acc;
  return prism_graph_add (bg, PRISM_OP_RUNNING_MAX, in, 1, NULL, NULL);
}

/* The running max @ins's values depend on (1 + its tensor), 0 for none, or
 * G_MAXUINT when they depend on two (no rule reads that). */
static guint
online_of (Block *b, const guint *ins, guint n)
{
  guint r = 0;

  for (guint i = 0; i < n; i++)
    {
      guint o = binfo (b, ins[i])->online;
      if (o != 0 && r != 0 && o != r)
        return G_MAXUINT;
      if (o != 0)
        r = o;
    }
  return r;
}

static void
try_block_op (State *s, PrismOpKind kind, const guint *ins, guint n, const PrismOpAttrs *attrs,
              int attr)
{
  PrismSearch *search = s->search;
  Block *b = s->blk;
  PrismGraph *bg = b->bg;
  guint n_ops = bg->ops->len, n_tensors = bg->tensors->len, n_eq = b->eq->len;
  guint8 saved_split[PRISM_MAX_OP_INPUTS][PRISM_MAX_DIMS];
  OpKey key, saved_last = b->last;
  gboolean accum = prism_op_kind_is_accum (kind);
  /* One step, three ops, one of them an accumulator (add_running_max()). */
  gboolean running = kind == PRISM_OP_RUNNING_MAX;
  guint cost = 1;
  guint saved_sinks = b->n_sinks, saved_open = b->n_open_sinks;
  BInfo bi = { 0, };
  guint8 cached;
  PrismPruneReason failure;
  guint64 h, sem = 0;
  int t;

  opkey_set (&key, kind, ins, n, attr, 0);
  if (opkey_compare (&key, &b->last) <= 0)
    {
      PRUNE_STEP (s, PRISM_PRUNE_ORDER, step_of (TRUE, kind, ins, n, attrs));
      return;
    }
  if (running && b->n_accums >= search->opts.max_accums)
    {
      PRUNE_STEP (s, PRISM_PRUNE_ACCUM, step_of (TRUE, kind, ins, n, attrs));
      return;
    }
  if (!accum && online_of (b, ins, n) == G_MAXUINT)
    {
      PRUNE_STEP (s, PRISM_PRUNE_LOOP,
                  step_hint (step_of (TRUE, kind, ins, n, attrs),
                             N_("it combines values rescaled to two running maxima")));
      return;
    }
  if (accum)
    {
      if (b->n_accums >= search->opts.max_accums || binfo (b, ins[0])->accumulated)
        {
          PRUNE_STEP (s, PRISM_PRUNE_ACCUM, step_of (TRUE, kind, ins, n, attrs));
          return;
        }
      /* Summing raw program inputs over the loop is a copy when the loop
       * is unused (the same program computes first, then accumulates) and
       * wrong when it is used; partial results of an earlier kernel may be
       * accumulated (a second kernel adding up partial sums). */
      if (kind == PRISM_OP_ACCUM && ins[0] < b->n_in &&
          b->in[ins[0]] < search->n_program_inputs)
        {
          PRUNE_STEP (s, PRISM_PRUNE_TRIVIAL,
                      step_hint (step_of (TRUE, kind, ins, n, attrs),
                                 N_("it accumulates a program input over the loop: a copy, or wrong")));
          return;
        }
    }

  /* Loop rules, checked before the builder to name the reason. */
  {
    const PrismTensor *ta = prism_graph_tensor (bg, ins[0]);
    gboolean bad = FALSE;

    if (accum || running)
      bad = ta->after_accum;
    else if (n == 2)
      bad = ta->after_accum != prism_graph_tensor (bg, ins[1])->after_accum;
    if (bad)
      {
        PRUNE_STEP (s, PRISM_PRUNE_LOOP, step_of (TRUE, kind, ins, n, attrs));
        return;
      }
    /* A reduction of a dim that is already 1 adds nothing. */
    if ((kind == PRISM_OP_ACCUM_SUM || kind == PRISM_OP_ACCUM_MEAN || kind == PRISM_OP_ACCUM_RMS ||
         kind == PRISM_OP_RMS_NORM || kind == PRISM_OP_ACCUM_SUM_ONLINE || running) &&
        dim_is_one (ta->dims[ta->ndims - 1]))
      {
        PRUNE_STEP (s, PRISM_PRUNE_SHAPE, step_of (TRUE, kind, ins, n, attrs));
        return;
      }
  }

  {
    guint8 in_roles[2][PRISM_MAX_DIMS], out_roles[PRISM_MAX_DIMS];
    guint nds[2];
    for (guint i = 0; i < n; i++)
      {
        nds[i] = prism_graph_tensor (bg, ins[i])->ndims;
        for (guint d = 0; d < PRISM_MAX_DIMS; d++)
          in_roles[i][d] = d < nds[i] ? block_role (s, ins[i], d) : ROLE_ONE;
      }
    if (!op_roles (search, kind, in_roles, nds, n, attrs, out_roles))
      {
        PRUNE_STEP (s, PRISM_PRUNE_SHAPE, step_of (TRUE, kind, ins, n, attrs));
        return;
      }
    {
      guint64 operands[2];
      gboolean after = accum || prism_graph_tensor (bg, ins[0])->after_accum;
      gboolean reduction = prism_op_kind_is_reduction (kind);
      guint8 reduced = reduction ? in_roles[0][attr]
                       : prism_op_kind_is_accum (kind) || running ? in_roles[0][nds[0] - 1] : 0;
      for (guint i = 0; i < n; i++)
        operands[i] = binfo (b, ins[i])->sem & ~(guint64) 1;
      sem = sem_of (kind, operands, n, reduction ? 0 : attr, reduced);
      sem = (sem & ~(guint64) 1) | (after ? 1 : 0);
      for (guint t2 = 0; t2 < bg->tensors->len; t2++)
        if (binfo (b, t2)->sem == sem)
          {
            PRUNE_STEP (s, PRISM_PRUNE_DUPLICATE,
                        step_arg (step_of (TRUE, kind, ins, n, attrs), t2));
            return;
          }
    }
  }

  h = hash_add (0x544b, (guint64) kind * 131 + (guint64) (attr + 7));
  for (guint i = 0; i < n; i++)
    h = hash_add (h, binfo (b, ins[i])->hash);
  cached = cache_get (search->cache, search->tag, h);
  if (cached_failure (cached, &failure))
    {
      PRUNE_STEP (s, failure, step_of (TRUE, kind, ins, n, attrs));
      return;
    }

  t = running ? add_running_max (bg, ins[0]) : prism_graph_add (bg, kind, ins, n, attrs, NULL);
  if (t < 0)
    {
      prism_graph_truncate (bg, n_ops, n_tensors);
      cache_put (search->cache, search->tag, h, CACHE_SHAPE);
      PRUNE_STEP (s, PRISM_PRUNE_SHAPE, step_of (TRUE, kind, ins, n, attrs));
      return;
    }
  if (search->opts.mode == PRISM_SEARCH_ENUMERATIVE)
    {
      guint64 smem;
      if (!prism_block_graph_smem_bytes (bg, NULL, 0, &smem) || smem > search->opts.smem_limit)
        {
          PRUNE_STEP (s, PRISM_PRUNE_SMEM,
                      step_arg (step_added (step_of (TRUE, kind, ins, n, attrs), (int) n_ops),
                                (gint64) smem));
          prism_graph_truncate (bg, n_ops, n_tensors);
          return;
        }
    }
  if (cached != CACHE_OK)
    {
      if (!oracle_ok (s, bg, b->in, (guint) t))
        {
          PRUNE_STEP (s, PRISM_PRUNE_EXPR,
                      step_arg (step_added (step_of (TRUE, kind, ins, n, attrs), (int) n_ops), t));
          prism_graph_truncate (bg, n_ops, n_tensors);
          cache_put (search->cache, search->tag, h, CACHE_EXPR);
          return;
        }
      cache_put (search->cache, search->tag, h, CACHE_OK);
    }

  /* Commit the step. */
  memcpy (saved_split, b->no_split, sizeof saved_split);
  bi.hash = h;
  bi.sem = sem;
  for (guint i = 0; i < n; i++)
    bi.reads |= binfo (b, ins[i])->reads;
  track_dims (b, kind, ins, n, attrs, (guint) t, &bi);
  track_partials (b, kind, ins, n, attrs, &bi);
  bi.online = running ? (guint) t + 1 : accum ? 0 : online_of (b, ins, n);
  if (running)
    {
      /* The block max and its accum_max: read by the next op of the step. */
      BInfo inner = bi;
      inner.uses = 1;
      inner.online = 0;
      g_array_append_val (b->info, inner);
      g_array_append_val (b->info, inner);
    }
  g_array_append_val (b->info, bi);
  for (guint i = 0; i < n; i++)
    {
      BInfo *in = binfo (b, ins[i]);
      if (in->uses++ == 0)
        {
          b->n_sinks--;
          if (!prism_graph_tensor (bg, ins[i])->after_accum)
            b->n_open_sinks--;
        }
    }
  b->n_sinks++;
  if (!prism_graph_tensor (bg, (guint) t)->after_accum)
    b->n_open_sinks++;
  if (accum)
    binfo (b, ins[0])->accumulated = TRUE;
  if (accum || running)
    b->n_accums++;
  b->n_ops += cost;
  s->n_total += cost;
  b->last = key;

  if (ops_needed (search, b) > ops_left (s))
    {
      PRUNE_STEP (s, PRISM_PRUNE_OPS,
                  step_hint (step_added (step_of (TRUE, kind, ins, n, attrs), (int) n_ops),
                             N_("finishing the kernel needs more ops than are left")));
    }
  else
    {
      s->depth++;
      count_state (s);
      search_block (s);
      s->depth--;
    }

  /* Undo. */
  b->last = saved_last;
  s->n_total -= cost;
  b->n_ops -= cost;
  if (accum)
    binfo (b, ins[0])->accumulated = FALSE;
  if (accum || running)
    b->n_accums--;
  for (guint i = 0; i < n; i++)
    binfo (b, ins[i])->uses--;
  b->n_sinks = saved_sinks;
  b->n_open_sinks = saved_open;
  memcpy (b->no_split, saved_split, sizeof saved_split);
  g_array_set_size (b->eq, n_eq);
  g_array_set_size (b->info, n_tensors);
  prism_graph_truncate (bg, n_ops, n_tensors);
}

/* The unpartitioned size of dim @d of block tensor @t. */
static gint64
full_size (State *s, guint t, guint d)
{
  Block *b = s->blk;
  PrismDimRef r = binfo (b, t)->src[d];

  if (r.input == PRISM_DIM_REF_NONE)
    return 1;
  return prism_dim_get_const (prism_graph_tensor (s->kg, b->in[r.input])->dims[r.dim]);
}

static void
block_ops (State *s)
{
  PrismSearch *search = s->search;
  Block *b = s->blk;
  guint nt = b->bg->tensors->len;
  guint low = b->last.none ? 0 : b->last.max_id;
  PrismOpAttrs attrs;

  prism_op_attrs_init (&attrs);
  attrs.eps = search->norm_eps;
  for (guint k = 0; k < search->opts.n_block_ops; k++)
    {
      PrismOpKind kind = search->block_ops[k];

      for (guint a = 0; a < nt; a++)
        {
          const PrismTensor *ta = prism_graph_tensor (b->bg, a);
          guint last = ta->ndims - 1;

          if (should_abort (s))
            return;
          if (prism_op_kind_is_binary (kind) || kind == PRISM_OP_MATMUL)
            {
              for (guint c = 0; c < nt; c++)
                {
                  guint ins[2] = { a, c };
                  if (!operand_pair_allowed (s, kind, a, c, low))
                    continue;
                  try_block_op (s, kind, ins, 2, &attrs, 0);
                }
              continue;
            }
          if (a < low)
            continue;
          if (kind == PRISM_OP_ACCUM_SUM_TODIMX || kind == PRISM_OP_ACCUM_RESCALE ||
              kind == PRISM_OP_ACCUM_SUM_RESCALE || kind == PRISM_OP_ACCUM_MAX ||
              prism_op_kind_is_online (kind))
            continue;
          if (kind == PRISM_OP_TRANSPOSE)
            {
              /* A tile as read (the block's first tensors are its inputs'
               * tiles), by the program's own permutations. */
              if (a >= b->n_in || ta->after_accum || b->in[a] >= MIN (search->n_program_inputs, 32))
                continue;
              for (guint k2 = 0; k2 < search->n_perms; k2++)
                {
                  if (search->perm_ndims[k2] != ta->ndims ||
                      !(search->perm_inputs[k2] & ((guint32) 1 << b->in[a])))
                    continue;
                  memcpy (attrs.perm, search->perms[k2], sizeof attrs.perm);
                  try_block_op (s, kind, &a, 1, &attrs, (int) (k2 + 1) * 64);
                }
              prism_op_attrs_init (&attrs);
              attrs.eps = search->norm_eps;
              continue;
            }
          if (kind == PRISM_OP_RUNNING_MAX)
            {
              if (!ta->after_accum && !dim_is_one (ta->dims[last]) &&
                  size_in (search->sum_sizes, search->n_sum_sizes, full_size (s, a, last)))
                try_block_op (s, kind, &a, 1, &attrs, 0);
              continue;
            }
          /* A value rescaled to a running max is accumulated by the online
           * accumulators, with the same max; no other accumulator is right. */
          if (prism_op_kind_is_accum (kind) && binfo (b, a)->online != 0)
            {
              guint ins[2] = { a, binfo (b, a)->online - 1 };

              if (kind != PRISM_OP_ACCUM && kind != PRISM_OP_ACCUM_SUM)
                continue;
              if (kind == PRISM_OP_ACCUM_SUM &&
                  !size_in (search->sum_sizes, search->n_sum_sizes, full_size (s, a, last)))
                continue;
              try_block_op (s, kind == PRISM_OP_ACCUM ? PRISM_OP_ACCUM_ONLINE : PRISM_OP_ACCUM_SUM_ONLINE,
                            ins, 2, &attrs, 0);
              continue;
            }
          if (kind == PRISM_OP_RMS_NORM || kind == PRISM_OP_ACCUM_RMS || kind == PRISM_OP_ACCUM_MEAN)
            {
              if (!size_in (search->norm_sizes, search->n_norm_sizes, full_size (s, a, last)))
                {
                  PRUNE_STEP (s, PRISM_PRUNE_SHAPE,
                              step_hint (step_of (TRUE, kind, &a, 1, NULL),
                                         N_("the program normalizes over no dim of this size")));
                  continue;
                }
            }
          else if (kind == PRISM_OP_ACCUM_SUM &&
                   !size_in (search->sum_sizes, search->n_sum_sizes, full_size (s, a, last)))
            {
              PRUNE_STEP (s, PRISM_PRUNE_SHAPE,
                          step_hint (step_of (TRUE, kind, &a, 1, NULL),
                                     N_("the program sums over no dim of this size")));
              continue;
            }
          if (prism_op_kind_is_unary (kind) || prism_op_kind_is_accum (kind))
            try_block_op (s, kind, &a, 1, &attrs, 0);
          else if (kind == PRISM_OP_RMS_NORM)
            try_block_op (s, kind, &a, 1, &attrs, 1);
          else if (prism_op_kind_is_reduction (kind))
            {
              for (guint d = 0; d < ta->ndims; d++)
                {
                  if (dim_is_one (ta->dims[d]))
                    continue;
                  if (!size_in (search->sum_sizes, search->n_sum_sizes, full_size (s, a, d)))
                    {
                      attrs.dim = (int) d;
                      PRUNE_STEP (s, PRISM_PRUNE_SHAPE,
                                  step_hint (step_of (TRUE, kind, &a, 1, &attrs),
                                             N_("the program sums over no dim of this size")));
                      continue;
                    }
                  attrs.dim = (int) d;
                  try_block_op (s, kind, &a, 1, &attrs, (int) d);
                }
              attrs.dim = 0;
            }
        }
    }
}

/* Block level: closing the kernel ------------------------------------------ */

static PrismKernelConstraints *
make_constraints (State *s, const guint *sinks, guint n_sinks)
{
  Block *b = s->blk;
  PrismKernelConstraints *c = prism_kernel_constraints_new ();

  c->n_inputs = b->n_in;
  for (guint i = 0; i < b->n_in; i++)
    {
      const PrismTensor *src = prism_graph_tensor (s->kg, b->in[i]);
      c->input_ndims[i] = src->ndims;
      for (guint d = 0; d < src->ndims; d++)
        c->input_sizes[i][d] = prism_dim_get_const (src->dims[d]);
    }
  memcpy (c->no_split, b->no_split, sizeof c->no_split);
  g_array_append_vals (c->equalities, b->eq->data, b->eq->len);
  c->n_outputs = n_sinks;
  for (guint o = 0; o < n_sinks; o++)
    {
      const PrismTensor *t = prism_graph_tensor (b->bg, sinks[o]);
      c->output_ndims[o] = t->ndims;
      c->output_reads[o] = binfo (b, sinks[o])->reads;
      for (guint d = 0; d < t->ndims; d++)
        c->output_source[o][d] = dim_is_one (t->dims[d])
                                 ? (PrismDimRef) { PRISM_DIM_REF_NONE, 0 }
                                 : binfo (b, sinks[o])->src[d];
    }
  return c;
}

/* Adds the kernel op with the body's current outputs and searches on at
 * kernel level. */
static void
close_kernel (State *s, const guint *sinks, guint n_sinks, guint64 body_hash)
{
  PrismSearch *search = s->search;
  Block *b = s->blk;
  guint n_ops = s->kg->ops->len, n_tensors = s->kg->tensors->len;
  OpKey key, saved_last = s->klast;
  const PrismOp *kop;
  int r;

  opkey_set (&key, PRISM_OP_KERNEL, b->in, b->n_in, 0, body_hash);
  if (opkey_compare (&key, &s->klast) <= 0)
    {
      PRUNE_STEP (s, PRISM_PRUNE_ORDER, step_of (FALSE, PRISM_OP_KERNEL, b->in, b->n_in, NULL));
      return;
    }
  for (guint o = 0; o < n_sinks; o++)
    for (guint t = 0; t < n_tensors; t++)
      if (kinfo (s, t)->sem == (binfo (b, sinks[o])->sem & ~(guint64) 1))
        {
          PRUNE_STEP (s, PRISM_PRUNE_DUPLICATE,
                      step_arg (step_of (FALSE, PRISM_OP_KERNEL, b->in, b->n_in, NULL), t));
          return;
        }
  r = prism_graph_add_kernel (s->kg, b->in, b->n_in, b->bg, NULL);
  if (r < 0)
    {
      prism_graph_truncate (s->kg, n_ops, n_tensors);
      PRUNE_STEP (s, PRISM_PRUNE_SHAPE, step_of (FALSE, PRISM_OP_KERNEL, b->in, b->n_in, NULL));
      return;
    }
  kop = prism_graph_op (s->kg, (guint) r);
  for (guint o = 0; o < kop->n_outputs; o++)
    {
      KInfo ki = { hash_add (body_hash, o), binfo (b, sinks[o])->sem & ~(guint64) 1, 0, { 0, } };
      for (guint d = 0; d < PRISM_MAX_DIMS; d++)
        ki.role[d] = d < prism_graph_tensor (b->bg, sinks[o])->ndims ? block_role (s, sinks[o], d)
                                                                     : ROLE_ONE;
      g_array_append_val (s->kinfo, ki);
    }
  for (guint o = 0; o < kop->n_outputs; o++)
    {
      guint8 cached = cache_get (search->cache, search->tag, kinfo (s, kop->outputs[o])->hash);

      if (cached == CACHE_OK)
        continue;
      if (cached == CACHE_EXPR || !oracle_ok (s, NULL, NULL, kop->outputs[o]))
        {
          cache_put (search->cache, search->tag, kinfo (s, kop->outputs[o])->hash, CACHE_EXPR);
          PRUNE_STEP (s, PRISM_PRUNE_EXPR,
                      step_arg (step_added (step_of (FALSE, PRISM_OP_KERNEL, b->in, b->n_in, NULL),
                                            r),
                                kop->outputs[o]));
          g_array_set_size (s->kinfo, n_tensors);
          prism_graph_truncate (s->kg, n_ops, n_tensors);
          return;
        }
      cache_put (search->cache, search->tag, kinfo (s, kop->outputs[o])->hash, CACHE_OK);
    }
  g_ptr_array_add (s->constraints, search->opts.mode == PRISM_SEARCH_SYMBOLIC
                                   ? make_constraints (s, sinks, n_sinks) : NULL);
  s->klast = key;
  s->depth++;
  s->blk = NULL;
  count_state (s);

  search_kernel (s);

  s->blk = b;
  s->depth--;
  s->klast = saved_last;
  g_ptr_array_set_size (s->constraints, s->constraints->len - 1);
  g_array_set_size (s->kinfo, n_tensors);
  prism_graph_truncate (s->kg, n_ops, n_tensors);
}

/* Enumerative mode: every output map of every output. */
static void
close_enumerative (State *s, const guint *sinks, guint n_sinks, guint o, guint64 h)
{
  Block *b = s->blk;
  PrismGraph *bg = b->bg;
  guint n_ops = bg->ops->len, n_tensors = bg->tensors->len;
  guint nd;

  if (o == n_sinks)
    {
      close_kernel (s, sinks, n_sinks, h);
      return;
    }
  nd = prism_graph_tensor (bg, sinks[o])->ndims;
  for (guint code = 0; code < 125 && !should_abort (s); code++)
    {
      int omap[PRISM_MAX_GRID_DIMS];
      guint c = code;
      gboolean ok = TRUE;

      for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++, c /= 5)
        {
          omap[p] = (int) (c % 5) - 1;
          if (p >= bg->grid_ndims ? omap[p] != -1 : omap[p] >= (int) nd)
            ok = FALSE;
          for (guint q = 0; q < p && ok; q++)
            if (omap[p] >= 0 && omap[q] == omap[p])
              ok = FALSE;
        }
      if (!ok)
        continue;
      if (prism_block_graph_add_output (bg, sinks[o], omap, NULL) < 0)
        {
          prism_graph_truncate (bg, n_ops, n_tensors);
          PRUNE_STEP (s, PRISM_PRUNE_SHAPE, close_step (&sinks[o]));
          continue;
        }
      close_enumerative (s, sinks, n_sinks, o + 1,
                         hash_add (h, (guint64) code * 1000003 + sinks[o]));
      prism_graph_truncate (bg, n_ops, n_tensors);
    }
}

static void
try_close (State *s)
{
  PrismSearch *search = s->search;
  Block *b = s->blk;
  PrismGraph *bg = b->bg;
  guint sinks[PRISM_MAX_OP_OUTPUTS], n_sinks = 0;
  guint n_ops = bg->ops->len, n_tensors = bg->tensors->len;
  gboolean computes = FALSE;
  guint64 h = b->input_hash;

  if (b->n_open_sinks > 0 || b->n_sinks > search->opts.max_block_outputs)
    return;
  for (guint t = 0; t < bg->tensors->len; t++)
    if (binfo (b, t)->uses == 0)
      sinks[n_sinks++] = t;
  for (guint i = 0; i < bg->ops->len; i++)
    {
      PrismOpKind k = prism_graph_op (bg, i)->kind;
      computes |= k != PRISM_OP_INPUT && k != PRISM_OP_ACCUM;
    }
  /* An output that is only an accumulated input tile passes data through:
   * its reader could read the input itself. */
  for (guint o = 0; o < n_sinks && computes; o++)
    {
      const PrismTensor *t = prism_graph_tensor (bg, sinks[o]);
      const PrismOp *op = prism_graph_op (bg, (guint) t->producer);
      if (op->kind == PRISM_OP_ACCUM && op->inputs[0] < b->n_in)
        computes = FALSE;
    }
  if (!computes)
    {
      PRUNE_STEP (s, PRISM_PRUNE_TRIVIAL,
                  step_hint (close_step (NULL), N_("the kernel only copies tiles")));
      return;
    }
  for (guint o = 0; o < n_sinks; o++)
    h = hash_add (h, binfo (b, sinks[o])->hash);

  if (search->opts.mode == PRISM_SEARCH_ENUMERATIVE)
    {
      close_enumerative (s, sinks, n_sinks, 0, h);
      return;
    }
  for (guint o = 0; o < n_sinks; o++)
    {
      int omap[PRISM_MAX_GRID_DIMS];
      for (guint p = 0; p < PRISM_MAX_GRID_DIMS; p++)
        omap[p] = p < bg->grid_ndims ? PRISM_MAP_UNKNOWN : PRISM_MAP_REPLICATE;
      if (prism_block_graph_add_output (bg, sinks[o], omap, NULL) < 0)
        {
          prism_graph_truncate (bg, n_ops, n_tensors);
          PRUNE_STEP (s, PRISM_PRUNE_SHAPE, close_step (&sinks[o]));
          return;
        }
    }
  close_kernel (s, sinks, n_sinks, h);
  prism_graph_truncate (bg, n_ops, n_tensors);
}

static void
search_block (State *s)
{
  PrismSearch *search = s->search;

  if (should_abort (s))
    return;
  if (s->split_phase && s->depth >= search->opts.split_depth)
    {
      Task *t = g_new0 (Task, 1);
      t->state = state_copy (s);
      push_task (search, s, t);
      return;
    }
  try_close (s);
  if (ops_left (s) == 0)
    {
      PRUNE_STEP (s, PRISM_PRUNE_OPS, step_named (TRUE, N_("another block op")));
      return;
    }
  block_ops (s);
}

/* ------------------------------------------------------------------------ */
/* Public API */

static void
add_size (gint64 *sizes, guint *n, gint64 v)
{
  if (v > 1 && *n < 16 && !size_in (sizes, *n, v))
    sizes[(*n)++] = v;
}

static void
collect_kinds (const PrismGraph *g, gboolean *has)
{
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (g, i);
      has[op->kind] = TRUE;
      if (op->body != NULL)
        collect_kinds (op->body, has);
    }
}

/* Bit k when tensor @t of @program is its k-th input (input k of the
 * search's graphs), else 0. */
static guint32
program_input_bit (const PrismGraph *program, guint t)
{
  int producer = prism_graph_tensor (program, t)->producer;
  guint k = 0;

  if (producer < 0 || prism_graph_op (program, (guint) producer)->kind != PRISM_OP_INPUT)
    return 0;
  for (guint i = 0; i < (guint) producer; i++)
    k += prism_graph_op (program, i)->kind == PRISM_OP_INPUT;
  return k < 32 ? (guint32) 1 << k : 0;
}

/* Keeps the op kinds an equivalent program could need: the program's own,
 * accumulators, and the pieces rms_norm and sum decompose into; and records
 * the sizes the program reduces.  The abstract expressions cannot tell a
 * sum over rows from a sum over columns of the same degree, and a sum of
 * degree 8 hides inside the factor chain of 4096, so without this the
 * oracle lets through reductions no equivalent program contains. */
static void
restrict_vocabulary (PrismSearch *search, const PrismGraph *program)
{
  gboolean has[PRISM_N_OPS] = { FALSE, }, allowed[PRISM_N_OPS];
  guint n;

  collect_kinds (program, has);
  memcpy (allowed, has, sizeof allowed);
  allowed[PRISM_OP_ACCUM] = TRUE;
  if (has[PRISM_OP_SUM])
    allowed[PRISM_OP_ACCUM_SUM] = TRUE;
  /* A row max the loop may split: only for programs that take a max. */
  if (has[PRISM_OP_MAX])
    allowed[PRISM_OP_RUNNING_MAX] = TRUE;
  if (has[PRISM_OP_RMS_NORM])
    {
      allowed[PRISM_OP_ACCUM_RMS] = allowed[PRISM_OP_ACCUM_MEAN] = TRUE;
      allowed[PRISM_OP_DIV] = allowed[PRISM_OP_MUL] = TRUE;
      allowed[PRISM_OP_SQRT] = allowed[PRISM_OP_SQUARE] = TRUE;
    }
  n = 0;
  for (guint i = 0; i < search->opts.n_kernel_ops; i++)
    if (allowed[search->kernel_ops[i]])
      search->kernel_ops[n++] = search->kernel_ops[i];
  search->opts.n_kernel_ops = n;
  n = 0;
  for (guint i = 0; i < search->opts.n_block_ops; i++)
    if (allowed[search->block_ops[i]])
      search->block_ops[n++] = search->block_ops[i];
  search->opts.n_block_ops = n;

  for (guint i = 0; i < program->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (program, i);
      const PrismTensor *in;

      if (op->n_inputs == 0)
        continue;
      in = prism_graph_tensor (program, op->inputs[0]);
      if (prism_op_kind_is_reduction (op->kind))
        add_size (search->sum_sizes, &search->n_sum_sizes,
                  prism_dim_get_const (in->dims[op->attrs.dim]));
      else if (op->kind == PRISM_OP_RMS_NORM)
        {
          for (guint d = in->ndims - MIN (op->attrs.norm_dims, in->ndims); d < in->ndims; d++)
            add_size (search->norm_sizes, &search->n_norm_sizes, prism_dim_get_const (in->dims[d]));
          search->norm_eps = op->attrs.eps;
        }
      else if (op->kind == PRISM_OP_TRANSPOSE)
        {
          guint k = 0;
          while (k < search->n_perms &&
                 !(search->perm_ndims[k] == in->ndims &&
                   memcmp (search->perms[k], op->attrs.perm, sizeof op->attrs.perm) == 0))
            k++;
          if (k == G_N_ELEMENTS (search->perms))
            continue;
          if (k == search->n_perms)
            {
              memcpy (search->perms[k], op->attrs.perm, sizeof op->attrs.perm);
              search->perm_ndims[k] = in->ndims;
              search->perm_inputs[k] = 0;
              search->n_perms++;
            }
          search->perm_inputs[k] |= program_input_bit (program, op->inputs[0]);
        }
    }
}

static guint
uf_find (guint *parent, guint x)
{
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

static void
uf_union (guint *parent, guint a, guint b)
{
  a = uf_find (parent, a);
  b = uf_find (parent, b);
  if (a != b)
    parent[MAX (a, b)] = MIN (a, b);
}

/* Names the logical indices of the program: a union-find over the dims of
 * its tensors, joined where an op identifies them (elementwise operands,
 * matmul batch and contraction dims, outputs with their sources).  Roles
 * stay off for programs that already contain custom kernels. */
static void
compute_roles (PrismSearch *search, const PrismGraph *program)
{
  guint nt = program->tensors->len, n_nodes = nt * PRISM_MAX_DIMS, n_roles = 0;
  g_autofree guint *parent = g_new (guint, MAX (n_nodes, 1));
  g_autofree int *role_of = g_new (int, MAX (n_nodes, 1));
  guint n_in = 0, n_out = 0;

#define NODE(t, d) ((t) * PRISM_MAX_DIMS + (d))
#define IS_ONE(t, d) (prism_dim_get_const (prism_graph_tensor (program, t)->dims[d]) == 1)
  for (guint x = 0; x < n_nodes; x++)
    {
      parent[x] = x;
      role_of[x] = -1;
    }
  for (guint i = 0; i < program->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (program, i);
      guint a, b, o, nd;

      if (op->kind == PRISM_OP_KERNEL || op->n_outputs > 1)
        return;
      if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT || op->n_inputs == 0)
        continue;
      a = op->inputs[0];
      o = op->outputs[0];
      nd = prism_graph_tensor (program, o)->ndims;
      if (op->kind == PRISM_OP_MATMUL)
        {
          b = op->inputs[1];
          for (guint d = 0; d + 2 < nd; d++)
            {
              uf_union (parent, NODE (a, d), NODE (b, d));
              uf_union (parent, NODE (o, d), NODE (a, d));
            }
          uf_union (parent, NODE (a, nd - 1), NODE (b, nd - 2));
          uf_union (parent, NODE (o, nd - 2), NODE (a, nd - 2));
          uf_union (parent, NODE (o, nd - 1), NODE (b, nd - 1));
        }
      else if (op->n_inputs == 2 && prism_op_kind_is_binary (op->kind))
        {
          b = op->inputs[1];
          for (guint d = 0; d < nd; d++)
            {
              gboolean a1 = IS_ONE (a, d), b1 = IS_ONE (b, d);
              if (!a1)
                uf_union (parent, NODE (o, d), NODE (a, d));
              if (!b1)
                uf_union (parent, NODE (o, d), NODE (b, d));
            }
        }
      else if (op->kind == PRISM_OP_TRANSPOSE)
        {
          for (guint d = 0; d < nd; d++)
            if (!IS_ONE (o, d))
              uf_union (parent, NODE (o, d), NODE (a, op->attrs.perm[d]));
        }
      else
        {
          for (guint d = 0; d < nd; d++)
            if (!(prism_op_kind_is_reduction (op->kind) && (int) d == op->attrs.dim) && !IS_ONE (o, d))
              uf_union (parent, NODE (o, d), NODE (a, d));
        }
    }

  /* Roles are numbered by the input dims; every other dim must join one. */
  for (guint i = 0; i < program->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (program, i);
      const PrismTensor *t;

      if (op->kind != PRISM_OP_INPUT)
        continue;
      t = prism_graph_tensor (program, op->outputs[0]);
      if (n_in >= G_N_ELEMENTS (search->input_roles))
        return;
      for (guint d = 0; d < PRISM_MAX_DIMS; d++)
        {
          guint r;
          if (d >= t->ndims || IS_ONE (op->outputs[0], d))
            {
              search->input_roles[n_in][d] = ROLE_ONE;
              continue;
            }
          r = uf_find (parent, NODE (op->outputs[0], d));
          if (role_of[r] < 0)
            {
              if (n_roles == MAX_ROLES)
                return;
              role_of[r] = (int) n_roles++;
            }
          search->input_roles[n_in][d] = (guint8) role_of[r];
        }
      n_in++;
    }
  for (guint i = 0; i < program->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (program, i);
      const PrismTensor *t;
      guint in;

      if (op->n_inputs == 0)
        continue;
      in = op->inputs[0];
      t = prism_graph_tensor (program, in);
      if (op->kind == PRISM_OP_OUTPUT)
        {
          for (guint d = 0; d < PRISM_MAX_DIMS; d++)
            {
              int r = d < t->ndims && !IS_ONE (in, d) ? role_of[uf_find (parent, NODE (in, d))] : -2;
              if (r == -1)
                return;
              search->output_roles[n_out][d] = r == -2 ? ROLE_ONE : (guint8) r;
            }
          n_out++;
        }
      else if (prism_op_kind_is_reduction (op->kind) || op->kind == PRISM_OP_MATMUL ||
               op->kind == PRISM_OP_RMS_NORM)
        {
          guint nd = t->ndims;
          guint first = prism_op_kind_is_reduction (op->kind) ? (guint) op->attrs.dim
                        : op->kind == PRISM_OP_MATMUL ? nd - 1
                        : nd - MIN (op->attrs.norm_dims, nd);
          guint end = op->kind == PRISM_OP_RMS_NORM ? nd : first + 1;
          for (guint d = first; d < end; d++)
            {
              int r = role_of[uf_find (parent, NODE (in, d))];
              guint64 bit;
              if (r < 0)
                return;
              bit = (guint64) 1 << r;
              if (prism_op_kind_is_reduction (op->kind))
                search->sum_roles |= bit;
              else if (op->kind == PRISM_OP_MATMUL)
                search->contract_roles |= bit;
              else
                search->norm_roles |= bit;
            }
        }
    }
#undef NODE
#undef IS_ONE
  search->roles_on = TRUE;
}

static gboolean
check_options (const PrismSearchOptions *o, GError **error)
{
  const char *bad = NULL;

  if (o->max_grid_dims < 1 || o->max_grid_dims > PRISM_MAX_GRID_DIMS)
    bad = "max_grid_dims must be between 1 and 3";
  else if (o->max_kernels < 1 || o->max_kernel_ops < 1)
    bad = "at least one custom kernel must be allowed";
  else if (o->max_kernels > PRISM_SEARCH_MAX_KERNELS || o->max_kernel_ops > PRISM_SEARCH_MAX_KERNEL_OPS ||
           o->max_block_ops > PRISM_SEARCH_MAX_BLOCK_OPS ||
           o->max_total_ops > PRISM_SEARCH_MAX_KERNEL_OPS + PRISM_SEARCH_MAX_KERNELS * PRISM_SEARCH_MAX_BLOCK_OPS)
    bad = "at most 4 custom kernels, 8 kernel-level ops, 16 ops per kernel and 72 ops in all";
  else if (o->max_kernel_inputs > PRISM_MAX_OP_INPUTS)
    bad = "max_kernel_inputs must be between 1 and 8 (0: automatic)";
  else if (o->max_block_outputs < 1 || o->max_block_outputs > PRISM_MAX_OP_OUTPUTS)
    bad = "max_block_outputs must be between 1 and 8";
  else if (o->max_block_ops == 1)
    bad = "max_block_ops must be between 2 and 16 (0: automatic)";

  else if (o->block_threads == 0 || o->block_threads % 32 != 0 || o->block_threads > 1024)
    bad = "block_threads must be a multiple of 32 up to 1024";
  else if (o->n_threads > 1024)
    bad = "too many threads";
  if (bad != NULL)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_FAILED, "search options: %s", bad);
      return FALSE;
    }
  return TRUE;
}

gboolean
prism_search_check_program (const PrismGraph *program, GError **error)
{
  guint n = 0;

  g_return_val_if_fail (program != NULL, FALSE);
  for (guint i = 0; i < program->ops->len && n <= PRISM_SEARCH_MAX_PROGRAM_OPS; i++)
    {
      const PrismOp *op = prism_graph_op (program, i);

      n += 1 + (op->body != NULL ? op->body->ops->len : 0);
    }
  if (n > PRISM_SEARCH_MAX_PROGRAM_OPS)
    {
      /* The whole count, for the message (the loop stopped early). */
      n = 0;
      for (guint i = 0; i < program->ops->len; i++)
        {
          const PrismOp *op = prism_graph_op (program, i);
          n = MIN (n + 1 + (op->body != NULL ? op->body->ops->len : 0), G_MAXUINT - 1);
        }
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                   _("the program has %u ops; the search takes programs of at most %u (its "
                     "candidates have at most %u kernel-level ops, custom kernels of at most %u)"),
                   n, PRISM_SEARCH_MAX_PROGRAM_OPS, PRISM_SEARCH_MAX_KERNEL_OPS,
                   PRISM_SEARCH_MAX_BLOCK_OPS);
      return FALSE;
    }
  for (guint t = 0; t < program->tensors->len; t++)
    {
      const PrismTensor *tensor = prism_graph_tensor (program, t);
      gint64 elements = 1;
      gboolean over = FALSE;

      for (guint d = 0; d < tensor->ndims && !over; d++)
        over = __builtin_mul_overflow (elements, MAX (prism_dim_get_const (tensor->dims[d]), 1),
                                       &elements) ||
               elements > PRISM_SEARCH_MAX_TENSOR_ELEMENTS;
      if (over)
        {
          g_autofree char *shape = prism_tensor_shape_to_string (program, tensor);
          g_autofree char *limit = g_strdup_printf ("%" G_GINT64_FORMAT, PRISM_SEARCH_MAX_TENSOR_ELEMENTS);

          g_set_error (error, PRISM_ERROR, PRISM_ERROR_LIMIT,
                       _("tensor %u %s has more elements than the search takes (at most %s, a "
                         "128 GiB tensor of f16)"), t, shape, limit);
          return FALSE;
        }
    }
  return TRUE;
}

static guint count_inputs (const PrismGraph *program);

guint
prism_search_auto_kernel_inputs (const PrismGraph *program)
{
  g_return_val_if_fail (program != NULL, 3);
  /* Constants are not counted: kernel_open() lets a kernel read them
   * beyond the limit (one value each). */
  return CLAMP (count_inputs (program), 3, PRISM_MAX_OP_INPUTS);
}

/* The ops a candidate must compute itself: every op of the program but its
 * inputs, outputs and constants (which are leaves of the search). */
static guint
count_compute_ops (const PrismGraph *program)
{
  guint n = 0;

  for (guint i = 0; i < program->ops->len; i++)
    {
      PrismOpKind kind = prism_graph_op (program, i)->kind;
      n += kind != PRISM_OP_INPUT && kind != PRISM_OP_OUTPUT && kind != PRISM_OP_CONSTANT;
    }
  return n;
}

static guint
count_inputs (const PrismGraph *program)
{
  guint n = 0;

  for (guint i = 0; i < program->ops->len; i++)
    n += prism_graph_op (program, i)->kind == PRISM_OP_INPUT;
  return n;
}

guint
prism_search_auto_total_ops (const PrismGraph *program)
{
  guint inputs, by_inputs, fused;

  g_return_val_if_fail (program != NULL, 9);
  inputs = count_inputs (program);
  by_inputs = 9 + 2 * MIN (inputs - MIN (inputs, 3), 3);
  /* Room for the program's own ops moved into one custom kernel: the
   * kernel op itself and the accumulator that writes its tile out come on
   * top of them (a written-out LayerNorm of 9 ops needs 11). */
  fused = count_compute_ops (program) + PRISM_SEARCH_FUSION_HEADROOM;
  return MIN (MAX (by_inputs, fused),
              PRISM_SEARCH_MAX_KERNEL_OPS + PRISM_SEARCH_MAX_KERNELS * PRISM_SEARCH_MAX_BLOCK_OPS);
}

/* TRUE if the tensor op @i computes is an output of @program. */
static gboolean
feeds_output (const PrismGraph *program, guint i)
{
  const PrismOp *op = prism_graph_op (program, i);

  for (guint j = 0; j < program->ops->len; j++)
    {
      const PrismOp *o = prism_graph_op (program, j);
      if (o->kind == PRISM_OP_OUTPUT && o->n_inputs > 0 && o->inputs[0] == op->outputs[0])
        return TRUE;
    }
  return FALSE;
}

/* The block ops of one custom kernel that holds every op of @program up to
 * (not including) the ones whose results are its outputs: the tiles of the
 * inputs those ops read, the ops, and the accumulator that writes the
 * kernel's tile out (a written-out LayerNorm before its matmul: X and 1/d,
 * eight ops, one accumulator: 11). */
static guint
block_ops_of_fusion (const PrismGraph *program)
{
  guint ops = 0, inputs = 0;
  g_autofree gboolean *read = g_new0 (gboolean, program->ops->len);

  for (guint i = 0; i < program->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (program, i);

      if (op->kind == PRISM_OP_INPUT || op->kind == PRISM_OP_OUTPUT ||
          op->kind == PRISM_OP_CONSTANT || feeds_output (program, i))
        continue;
      ops++;
      for (guint k = 0; k < op->n_inputs; k++)
        {
          int p = prism_graph_tensor (program, op->inputs[k])->producer;
          if (p >= 0 && prism_graph_op (program, (guint) p)->kind == PRISM_OP_INPUT && !read[p])
            {
              read[p] = TRUE;
              inputs++;
            }
        }
    }
  return inputs + ops + 1;
}

guint
prism_search_auto_block_ops (const PrismGraph *program)
{
  guint base = 11;

  g_return_val_if_fail (program != NULL, 11);
  for (guint i = 0; i < program->ops->len; i++)
    if (prism_graph_op (program, i)->kind == PRISM_OP_MAX)
      base = 13;
  return MIN (MAX (base, block_ops_of_fusion (program)), PRISM_SEARCH_MAX_BLOCK_OPS);
}

PrismSearch *
prism_search_new (const PrismGraph *program, const PrismSearchOptions *options, GError **error)
{
  g_autoptr(GArray) outs = NULL;
  PrismSearch *search;
  PrismSearchOptions defaults;

  if (options == NULL)
    {
      prism_search_options_init (&defaults);
      options = &defaults;
    }
  if (!check_options (options, error))
    return NULL;
  if (!prism_search_check_program (program, error))
    return NULL;
  if (!prism_graph_validate (program, error))
    return NULL;
  if (!prism_graph_is_concrete (program))
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED,
                   "the program to optimize must have concrete sizes");
      return NULL;
    }
  outs = prism_graph_get_outputs (program);
  if (outs->len > PRISM_MAX_OP_OUTPUTS)
    {
      g_set_error (error, PRISM_ERROR, PRISM_ERROR_UNSUPPORTED, "more than %d outputs",
                   PRISM_MAX_OP_OUTPUTS);
      return NULL;
    }

  search = g_new0 (PrismSearch, 1);
  search->opts = *options;
  if (search->opts.max_kernel_inputs == 0)
    search->opts.max_kernel_inputs = prism_search_auto_kernel_inputs (program);
  if (search->opts.max_block_ops == 0)
    search->opts.max_block_ops = prism_search_auto_block_ops (program);
  if (search->opts.max_total_ops == 0)
    search->opts.max_total_ops = prism_search_auto_total_ops (program);
  if (search->opts.kernel_ops == NULL)
    {
      search->opts.kernel_ops = default_kernel_ops;
      search->opts.n_kernel_ops = G_N_ELEMENTS (default_kernel_ops);
    }
  if (search->opts.block_ops == NULL)
    {
      search->opts.block_ops = default_block_ops;
      search->opts.n_block_ops = G_N_ELEMENTS (default_block_ops);
    }
  search->opts.n_kernel_ops = MIN (search->opts.n_kernel_ops, PRISM_N_OPS);
  search->opts.n_block_ops = MIN (search->opts.n_block_ops, PRISM_N_OPS);
  memcpy (search->kernel_ops, search->opts.kernel_ops,
          search->opts.n_kernel_ops * sizeof (PrismOpKind));
  memcpy (search->block_ops, search->opts.block_ops, search->opts.n_block_ops * sizeof (PrismOpKind));
  search->opts.kernel_ops = search->kernel_ops;
  search->opts.block_ops = search->block_ops;
  restrict_vocabulary (search, program);
  compute_roles (search, program);
  if (!search->roles_on)
    {
      /* Without roles every role check passes. */
      search->sum_roles = search->norm_roles = search->contract_roles = G_MAXUINT64;
      memset (search->output_roles, ROLE_ANY, sizeof search->output_roles);
    }
  if (search->opts.n_threads == 0)
    search->opts.n_threads = g_get_num_processors ();
  if (search->opts.split_depth == 0)
    search->opts.split_depth = search->opts.mode == PRISM_SEARCH_SYMBOLIC ? 3 : 1;

  /* The search starts from the program's inputs; the size variables of
   * every kernel it may open are registered once, up front. */
  search->program = prism_graph_new ();
  prism_graph_set_name (search->program, program->name, program->description);
  for (guint i = 0; i < program->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (program, i);
      const PrismTensor *t;
      gint64 shape[PRISM_MAX_DIMS];

      if (op->kind != PRISM_OP_INPUT)
        continue;
      t = prism_graph_tensor (program, op->outputs[0]);
      prism_tensor_get_shape (t, shape);
      prism_graph_add_input (search->program, op->name, t->ndims, shape, t->dtype, NULL);
      search->n_program_inputs++;
    }
  /* The program's constants are leaves like its inputs (after them, so
   * that input k is still tensor k); equal ones once. */
  for (guint i = 0; i < program->ops->len; i++)
    {
      const PrismOp *op = prism_graph_op (program, i);
      const PrismTensor *t;
      gboolean seen = FALSE;

      if (op->kind != PRISM_OP_CONSTANT)
        continue;
      t = prism_graph_tensor (program, op->outputs[0]);
      for (guint j = 0; j < search->program->ops->len && !seen; j++)
        {
          const PrismOp *c = prism_graph_op (search->program, j);
          const PrismTensor *ct = prism_graph_tensor (search->program, c->outputs[0]);
          seen = c->kind == PRISM_OP_CONSTANT && c->attrs.value == op->attrs.value &&
                 ct->ndims == t->ndims && ct->dtype == t->dtype;
        }
      if (!seen)
        prism_graph_add_constant (search->program, op->attrs.value, t->ndims, t->dtype, NULL);
    }
  search->var_base = 0;
  for (guint k = 0; k < search->opts.max_kernels; k++)
    {
      static const char * const axis[4] = { "gx", "gy", "gz", "F" };
      for (guint p = 0; p < 4; p++)
        {
          g_autofree char *name = g_strdup_printf ("%s%u", axis[p], k);
          prism_graph_add_var (search->program, name);
        }
    }
  search->n_outputs = outs->len;
  for (guint o = 0; o < outs->len; o++)
    {
      const PrismTensor *t = prism_graph_tensor (program, g_array_index (outs, guint, o));
      search->out_ndims[o] = t->ndims;
      prism_tensor_get_shape (t, search->out_shape[o]);
    }
  /* Output ops come in the order of prism_graph_get_outputs(). */
  for (guint i = 0, o = 0; i < program->ops->len && o < outs->len; i++)
    if (prism_graph_op (program, i)->kind == PRISM_OP_OUTPUT)
      search->out_names[o++] = g_strdup (prism_graph_op (program, i)->name);

  for (guint i = 0; i < CACHE_SHARDS; i++)
    {
      g_mutex_init (&search->cache[i].lock);
      shard_clear (&search->cache[i]);
    }
  {
    static guint64 next_tag;
    static GMutex tag_lock;
    g_mutex_lock (&tag_lock);
    search->tag = mix64 (++next_tag);
    g_mutex_unlock (&tag_lock);
  }
  g_mutex_init (&search->lock);
  g_cond_init (&search->cond);
  search->cancel = g_cancellable_new ();
  search->time_limit_us = (gint64) (search->opts.time_limit_s * G_USEC_PER_SEC);
  return search;
}

void
prism_search_free (PrismSearch *search)
{
  if (search == NULL)
    return;
  g_return_if_fail (!g_atomic_int_get (&search->running));
  prism_graph_unref (search->program);
  for (guint o = 0; o < G_N_ELEMENTS (search->out_names); o++)
    g_free (search->out_names[o]);
  for (guint i = 0; i < CACHE_SHARDS; i++)
    {
      g_free (search->cache[i].keys);
      g_free (search->cache[i].values);
      g_mutex_clear (&search->cache[i].lock);
    }
  g_clear_pointer (&search->skip, g_hash_table_unref);
  g_clear_object (&search->cancel);
  g_mutex_clear (&search->lock);
  g_cond_clear (&search->cond);
  g_free (search);
}

void
prism_search_set_observer (PrismSearch *search, const PrismSearchObserver *observer,
                           gpointer user_data)
{
  search->observer = *observer;
  search->observer_data = user_data;
  g_atomic_int_set (&search->samples_left,
                    observer->pruned_sample != NULL ? PRISM_SEARCH_MAX_SAMPLES : 0);
}

void
prism_search_skip_task (PrismSearch *search, guint task)
{
  if (search->skip == NULL)
    search->skip = g_hash_table_new (NULL, NULL);
  g_hash_table_add (search->skip, GUINT_TO_POINTER (task));
}

void
prism_search_set_elapsed_offset (PrismSearch *search, double seconds)
{
  search->elapsed_offset = seconds;
}

static State *
root_state (PrismSearch *search)
{
  State *s = g_new0 (State, 1);

  s->search = search;
  s->split_phase = TRUE;
  s->task = G_MAXUINT;
  s->kg = prism_graph_copy (search->program);
  s->kinfo = g_array_new (FALSE, TRUE, sizeof (KInfo));
  for (guint t = 0; t < s->kg->tensors->len; t++)
    {
      const PrismTensor *tt = prism_graph_tensor (s->kg, t);
      KInfo ki = { hash_add (0x494e, t), hash_add (0x494e, t) & ~(guint64) 1, 0, { 0, } };
      for (guint d = 0; d < tt->ndims; d++)
        ki.hash = hash_dim (ki.hash, tt->dims[d]);
      for (guint d = 0; d < PRISM_MAX_DIMS; d++)
        ki.role[d] = d >= tt->ndims || t >= search->n_program_inputs ? ROLE_ONE  /* constants */
                     : !search->roles_on ? ROLE_ANY
                     : search->input_roles[MIN (t, G_N_ELEMENTS (search->input_roles) - 1)][d];
      g_array_append_val (s->kinfo, ki);
    }
  s->constraints = g_ptr_array_new_with_free_func ((GDestroyNotify) prism_kernel_constraints_free);
  s->klast.none = TRUE;
  return s;
}

static void
on_parent_cancelled (GCancellable *parent, gpointer data)
{
  prism_search_stop (data);
}

/* The tasks a split at @depth cuts: the split phase run with nothing
 * queued, sampled or reported. */
static guint
count_tasks (PrismSearch *search, guint depth)
{
  guint saved_depth = search->opts.split_depth;
  gint saved_samples = g_atomic_int_get (&search->samples_left);
  State *root;
  guint n;

  search->opts.split_depth = depth;
  search->counting = TRUE;
  g_atomic_int_set (&search->samples_left, 0);
  search->next_task = 0;
  root = root_state (search);
  search_kernel (root);
  state_free (root);
  n = search->next_task;
  search->next_task = 0;
  g_atomic_int_set (&search->samples_left, saved_samples);
  search->counting = FALSE;
  search->opts.split_depth = saved_depth;
  return n;
}

/* With min_tasks set, the first depth from split_depth on whose split gives
 * at least that many tasks (or the deepest tried): many processes need many
 * tasks to share, and the split is the same in every one of them (it
 * depends only on the program and the options).  The counting leaves no
 * trace in the counters. */
static void
choose_split_depth (PrismSearch *search)
{
  guint depth = search->opts.split_depth;

  if (search->opts.min_tasks == 0)
    return;
  while (depth < PRISM_SEARCH_MAX_SPLIT_DEPTH && count_tasks (search, depth) < search->opts.min_tasks &&
         !g_atomic_int_get (&search->stop))
    depth++;
  search->opts.split_depth = depth;
  g_mutex_lock (&search->lock);
  memset (&search->stats, 0, sizeof search->stats);
  memset (&search->split_stats, 0, sizeof search->split_stats);
  g_mutex_unlock (&search->lock);
}

gboolean
prism_search_run (PrismSearch *search, GError **error)
{
  g_autoptr(GError) local = NULL;
  GCancellable *parent = g_cancellable_get_current ();
  gulong parent_handler = 0;
  State *root;

  g_return_val_if_fail (!g_atomic_int_get (&search->running), FALSE);
  search->pool = g_thread_pool_new (task_run, search, (gint) search->opts.n_threads, TRUE, &local);
  if (search->pool == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "cannot start the search: ");
      return FALSE;
    }
  g_atomic_int_set (&search->running, 1);
  g_mutex_lock (&search->lock);
  search->start_us = g_get_monotonic_time ();
  search->paused_total_us = 0;
  if (g_atomic_int_get (&search->paused))
    search->pause_start_us = search->start_us;
  search->stop_reason = NULL;
  memset (&search->stats, 0, sizeof search->stats);
  memset (&search->split_stats, 0, sizeof search->split_stats);
  g_mutex_unlock (&search->lock);
  search->next_task = 0;
  search->last_tick_us = search->start_us;
  /* A stop of the caller's work (its current cancellable) stops the search;
   * one that came before the search started stops it at once. */
  if (parent != NULL)
    parent_handler = g_cancellable_connect (parent, G_CALLBACK (on_parent_cancelled), search, NULL);

  choose_split_depth (search);
  /* Split phase: the top of the tree, on this thread. */
  root = root_state (search);
  count_state (root);
  search_kernel (root);
  flush_stats (root);
  state_free (root);

  /* Wait for the workers, ticking; the time limit holds even while every
   * worker is busy deciding candidates. */
  g_mutex_lock (&search->lock);
  while (search->queued > 0)
    {
      g_cond_wait_until (&search->cond, &search->lock, g_get_monotonic_time () + TICK_US);
      g_mutex_unlock (&search->lock);
      maybe_tick (search, FALSE);
      check_time_limit (search);
      g_mutex_lock (&search->lock);
    }
  g_mutex_unlock (&search->lock);
  g_thread_pool_free (search->pool, FALSE, TRUE);
  search->pool = NULL;
  if (parent_handler != 0)
    g_cancellable_disconnect (parent, parent_handler);

  g_mutex_lock (&search->lock);
  if (search->stop_reason == NULL)
    search->stop_reason = g_atomic_int_get (&search->stop) ? "stopped" : "exhausted";
  search->stats.elapsed_s = elapsed_us_locked (search, g_get_monotonic_time ()) / 1e6
                            + search->elapsed_offset;
  g_mutex_unlock (&search->lock);
  g_atomic_int_set (&search->running, 0);
  maybe_tick (search, TRUE);
  return TRUE;
}

void
prism_search_stop (PrismSearch *search)
{
  stop_with (search, "stopped");
}

void
prism_search_set_paused (PrismSearch *search, gboolean paused)
{
  g_mutex_lock (&search->lock);
  if (paused && !g_atomic_int_get (&search->paused))
    {
      search->pause_start_us = g_get_monotonic_time ();
      g_atomic_int_set (&search->paused, 1);
    }
  else if (!paused && g_atomic_int_get (&search->paused))
    {
      if (search->start_us > 0)
        search->paused_total_us += g_get_monotonic_time () - search->pause_start_us;
      search->pause_start_us = 0;
      g_atomic_int_set (&search->paused, 0);
    }
  g_cond_broadcast (&search->cond);
  g_mutex_unlock (&search->lock);
}

void
prism_search_set_time_limit (PrismSearch *search, double seconds)
{
  g_mutex_lock (&search->lock);
  /* The budget is per run: a resumed search gets it again. */
  search->opts.time_limit_s = seconds;
  search->time_limit_us = (gint64) (seconds * G_USEC_PER_SEC);
  g_mutex_unlock (&search->lock);
}

void
prism_search_get_stats (PrismSearch *search, PrismSearchStats *stats)
{
  g_mutex_lock (&search->lock);
  *stats = search->stats;
  if (g_atomic_int_get (&search->running))
    stats->elapsed_s = elapsed_us_locked (search, g_get_monotonic_time ()) / 1e6
                       + search->elapsed_offset;
  g_mutex_unlock (&search->lock);
}

void
prism_search_get_split_stats (PrismSearch *search, PrismSearchStats *stats)
{
  g_mutex_lock (&search->lock);
  *stats = search->split_stats;
  g_mutex_unlock (&search->lock);
}

double
prism_search_get_elapsed (PrismSearch *search)
{
  double e;

  g_mutex_lock (&search->lock);
  if (search->start_us == 0)
    e = search->elapsed_offset;
  else if (g_atomic_int_get (&search->running))
    e = elapsed_us_locked (search, g_get_monotonic_time ()) / 1e6 + search->elapsed_offset;
  else
    e = search->stats.elapsed_s;
  g_mutex_unlock (&search->lock);
  return e;
}

const char *
prism_search_get_stop_reason (PrismSearch *search)
{
  const char *r;

  g_mutex_lock (&search->lock);
  r = g_atomic_int_get (&search->running) ? NULL : search->stop_reason;
  g_mutex_unlock (&search->lock);
  return r;
}

const PrismSearchOptions *
prism_search_get_options (PrismSearch *search)
{
  return &search->opts;
}

const PrismGraph *
prism_search_get_program (PrismSearch *search)
{
  return search->program;
}
