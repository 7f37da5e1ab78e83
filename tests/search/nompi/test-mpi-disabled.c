/* test-mpi-disabled.c — prism-mpi-run.c built without MPI (meson option
 * mpi disabled): one process, even when started by mpirun
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib.h>

#include "prism-mpi-run.h"

#ifdef PRISM_HAVE_MPI
#error "this test builds prism-mpi-run.c without MPI: its own config.h must lack PRISM_HAVE_MPI"
#endif

static void
test_one_process (void)
{
  g_autoptr(GError) error = NULL;
  PrismMpiRun *run;

  /* As mpirun would start it: still one process. */
  g_setenv ("OMPI_COMM_WORLD_SIZE", "3", TRUE);
  g_setenv ("PMIX_RANK", "1", TRUE);
  run = prism_mpi_run_init (&error);
  g_assert_no_error (error);
  g_assert_null (run);
  g_assert_cmpuint (prism_mpi_run_get_rank (run), ==, 0);
  g_assert_cmpuint (prism_mpi_run_get_size (run), ==, 1);
  g_assert_cmpuint (prism_mpi_run_get_local_rank (run), ==, 0);
  g_assert_null (prism_mpi_run_get_peers (run));
  g_assert_null (prism_mpi_run_get_problem (run));
  g_assert_false (prism_mpi_run_is_misconfigured (run));
  g_assert_true (prism_mpi_run_check_startup (run, NULL, &error));
  g_assert_no_error (error);
  prism_mpi_run_finish (run);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mpi-disabled/one-process", test_one_process);
  return g_test_run ();
}
