/* fake-nvrtc.c — a stand-in for libnvrtc that compiles nothing
 *
 * Test-only, beside fake-cuda.c: that driver ignores the CUBIN and runs the
 * CPU build of the job's kernels.cu, so NVRTC's real compilation (seconds
 * per program) is time spent on nothing.  Tests that time many programs
 * (test-mpi-tune) set $PRISM_NVRTC_LIBRARY to this.  Every program
 * "compiles" to a few bytes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__ ((visibility ("default")))
#define DECL(ret, name, args) EXPORT ret name args; ret name args

static const char image[] = "fake-nvrtc: no CUBIN";

DECL (int, nvrtcVersion, (int *major, int *minor)) { *major = 13; *minor = 0; return 0; }
DECL (const char *, nvrtcGetErrorString, (int result)) { (void) result; return "NVRTC_ERROR_FAKE"; }

DECL (int, nvrtcCreateProgram, (void **prog, const char *src, const char *name, int n_headers,
                                const char * const *headers, const char * const *names))
{
  (void) src; (void) name; (void) n_headers; (void) headers; (void) names;
  *prog = malloc (1);
  return *prog != NULL ? 0 : 1;
}

DECL (int, nvrtcDestroyProgram, (void **prog)) { free (*prog); *prog = NULL; return 0; }
DECL (int, nvrtcCompileProgram, (void *prog, int n, const char * const *options))
{
  (void) prog; (void) n; (void) options;
  return 0;
}
DECL (int, nvrtcGetProgramLogSize, (void *prog, size_t *size)) { (void) prog; *size = 1; return 0; }
DECL (int, nvrtcGetProgramLog, (void *prog, char *log)) { (void) prog; log[0] = '\0'; return 0; }
DECL (int, nvrtcGetCUBINSize, (void *prog, size_t *size)) { (void) prog; *size = sizeof image; return 0; }
DECL (int, nvrtcGetCUBIN, (void *prog, char *cubin)) { (void) prog; memcpy (cubin, image, sizeof image); return 0; }
