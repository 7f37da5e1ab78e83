/* prism-mpi-run.h — one `prism search` across the ranks of an MPI job
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every rank runs the same split phase; rank 0 hands the tasks out one at a
 * time as the ranks ask (a rank that finishes asks for more), gathers the
 * verified candidates each task met into its pipeline's publication order
 * and alone writes results.json (docs/architecture.md, "MPI").  Built
 * without MPI (meson option mpi), prism_mpi_run_init() always returns NULL
 * and the program runs as one process.
 */
#pragma once

#include <glib.h>

#include "prism-pipeline.h"

G_BEGIN_DECLS

typedef struct _PrismMpiRun PrismMpiRun;

/**
 * prism_mpi_run_init:
 * @error: return location for a #GError
 *
 * Starts MPI when the program was started by mpirun (its environment says
 * so) and the job has more than one rank.
 *
 * Returns: (transfer full) (nullable): the run, or %NULL for one process
 *   (@error set if MPI could not start)
 */
PrismMpiRun *prism_mpi_run_init          (GError            **error);
guint        prism_mpi_run_get_rank      (PrismMpiRun        *run);
guint        prism_mpi_run_get_size      (PrismMpiRun        *run);
/* This rank's place among the job's ranks on its node (0 alone), which
 * chooses its GPU. */
guint        prism_mpi_run_get_local_rank (PrismMpiRun       *run);

/**
 * prism_mpi_run_check_startup:
 * @local: (nullable): why this rank cannot search, %NULL if it can
 * @error: return location for a #GError
 *
 * Collective: every rank says whether it could read the program and set up
 * its search.  Returns %FALSE on every rank when one could not, with the
 * first such rank's message ("rank 2: …"), so that all of them stop and
 * none waits for another.
 */
gboolean     prism_mpi_run_check_startup (PrismMpiRun        *run,
                                          const GError       *local,
                                          GError            **error);

/* The callbacks that make a pipeline one of the job's (borrowed: valid
 * until prism_mpi_run_finish()). */
const PrismPipelinePeers *prism_mpi_run_get_peers (PrismMpiRun *run);

/* A message for the user when the job went wrong (a rank lost, another
 * configuration on a rank), or %NULL; rank 0's. */
const char  *prism_mpi_run_get_problem   (PrismMpiRun        *run);
/* Rank 0: a rank was started with another program or other options (its
 * fingerprint differs): the run is bad usage, whatever it found. */
gboolean     prism_mpi_run_is_misconfigured (PrismMpiRun     *run);

/* Ends the job on this rank (rank 0 first tells the others the run is
 * over) and frees @run.  Skips MPI_Finalize when a rank was lost, which
 * would wait for it. */
void         prism_mpi_run_finish        (PrismMpiRun        *run);

G_END_DECLS
