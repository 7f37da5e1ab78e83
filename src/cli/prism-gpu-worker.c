/* prism-gpu-worker.c — the child process of GPU measurements
 *
 * `prism-gpu-worker JOBDIR` compiles, checks and times the kernels of a job
 * folder written by prism_gpu_bench_run() and writes JOBDIR/result.json.
 * It is a process of its own so that a hung or crashing kernel never takes
 * the explorer or the command line down with it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "prism-gpu-bench.h"

int
main (int argc, char **argv)
{
  return prism_gpu_bench_worker_main (argc, argv);
}
