/* fake-cuda.c — a stand-in for libcuda.so.1 that runs kernels on the CPU
 *
 * Test-only.  It implements the driver functions prism-gpu-worker uses:
 * device memory is host memory, events read the monotonic clock, and
 * cuModuleLoadData ignores the CUBIN and instead dlopens the CPU build of the
 * same generated source ($PRISM_FAKE_CUDA_KERNELS, compiled with g++ -shared),
 * whose extern "C" kernels cuLaunchKernel runs block by block, as the CPU
 * build's own launcher does.  Works for f32 programs, whose device and CPU
 * layouts are the same.
 *
 * $PRISM_FAKE_CUDA_KERNELS may instead name a folder of kernel headers (as
 * prism_kernel_headers_write() makes it): then cuModuleLoadData builds the
 * CPU build of the job's own kernels.cu (the worker's argument) with g++,
 * so a run that times several graphs (a search's tuning) needs nothing
 * prepared per graph.
 *
 * $PRISM_FAKE_CUDA_CORRUPT=1 perturbs device-to-host copies (a wrong kernel);
 * $PRISM_FAKE_CUDA_HANG=1 makes launches never return (a hung kernel), and
 * $PRISM_FAKE_CUDA_HANG=NAME only launches of kernels whose name contains
 * NAME; $PRISM_FAKE_CUDA_FAIL=NAME makes launches of kernels whose name
 * contains NAME fail with CUDA_ERROR_LAUNCH_FAILED (a faulting kernel, as a
 * device that is lost reports it); $PRISM_FAKE_CUDA_CRASH=NAME makes them
 * kill the process (a driver crash).  $PRISM_FAKE_CUDA_DEVICES=N makes the
 * driver see N devices (default 1), all the same.  Stream capture records
 * launches into a graph that cuGraphLaunch replays ($PRISM_FAKE_CUDA_NO_GRAPH=1
 * refuses capture); cuLaunchKernelEx runs as cuLaunchKernel; the bench's
 * prism_l2_flush is built in; $PRISM_FAKE_CUDA_STATS names a file that gets
 * the counts of flushes, graph launches and cuLaunchKernelEx calls at exit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

typedef struct { unsigned int x, y, z; } Dim3;

typedef struct Function Function;

typedef struct
{
  void *handle;
  Function *functions;    /* looked up in it, freed with it */
} Module;

struct Function
{
  Module *module;
  void *fn;
  char name[256];
  Function *next;
};

typedef struct
{
  double ms;
} Event;

#define EXPORT __attribute__ ((visibility ("default")))

/* Every function below is an exported driver entry point; prototypes keep
 * the compiler's missing-declaration checks quiet. */
#define DECL(ret, name, args) EXPORT ret name args; ret name args

static double
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

DECL (CUresult, cuInit, (unsigned int flags)) { (void) flags; return 0; }
DECL (CUresult, cuDriverGetVersion, (int *v)) { *v = 13000; return 0; }
#define LAUNCH_FAILED 719   /* CUDA_ERROR_LAUNCH_FAILED */

DECL (CUresult, cuGetErrorName, (CUresult e, const char **s))
{
  *s = e == LAUNCH_FAILED ? "CUDA_ERROR_LAUNCH_FAILED" : e == 500 ? "CUDA_ERROR_NOT_FOUND" : "CUDA_ERROR_FAKE";
  return 0;
}

DECL (CUresult, cuGetErrorString, (CUresult e, const char **s))
{
  *s = e == LAUNCH_FAILED ? "unspecified launch failure" : "fake driver error";
  return 0;
}
static int
n_devices (void)
{
  const char *v = getenv ("PRISM_FAKE_CUDA_DEVICES");
  int n = v != NULL ? atoi (v) : 1;

  return n >= 0 && n <= 64 ? n : 1;
}

DECL (CUresult, cuDeviceGetCount, (int *n)) { *n = n_devices (); return 0; }
DECL (CUresult, cuDeviceGet, (int *d, int ordinal))
{
  *d = ordinal;
  return ordinal >= 0 && ordinal < n_devices () ? 0 : 101;   /* CUDA_ERROR_INVALID_DEVICE */
}

DECL (CUresult, cuDeviceGetName, (char *name, int len, int dev))
{
  (void) dev;
  strncpy (name, "Fake CUDA device (CPU)", (size_t) len);
  name[len - 1] = '\0';
  return 0;
}

DECL (CUresult, cuDeviceGetAttribute, (int *v, int attr, int dev))
{
  (void) dev;
  switch (attr)
    {
    case 75: *v = 9; break;               /* compute capability 9.0 */
    case 76: *v = 0; break;
    case 16: *v = 4; break;               /* SMs */
    case 38: *v = 1 << 20; break;         /* L2 bytes */
    case 97: *v = 227 * 1024; break;      /* shared memory per block, opt-in */
    case 81: *v = 228 * 1024; break;      /* shared memory per SM */
    case 1: *v = 1024; break;             /* threads per block */
    case 39: *v = 2048; break;            /* threads per SM */
    case 106: *v = 32; break;             /* blocks per SM */
    case 82: *v = 65536; break;           /* registers per SM */
    case 13: *v = 1980000; break;         /* clock, kHz */
    default: *v = 1000; break;
    }
  return 0;
}

DECL (CUresult, cuDeviceTotalMem_v2, (size_t *bytes, int dev)) { (void) dev; *bytes = (size_t) 1 << 30; return 0; }

DECL (CUresult, cuDeviceGetPCIBusId, (char *id, int len, int dev))
{
  snprintf (id, (size_t) len, "0000:%02x:00.0", dev + 0x19);
  return 0;
}
DECL (CUresult, cuDevicePrimaryCtxRetain, (void **ctx, int dev)) { (void) dev; *ctx = (void *) 1; return 0; }
DECL (CUresult, cuDevicePrimaryCtxRelease_v2, (int dev)) { (void) dev; return 0; }
DECL (CUresult, cuCtxSetCurrent, (void *ctx)) { (void) ctx; return 0; }
DECL (CUresult, cuCtxSynchronize, (void)) { return 0; }

/* $PRISM_FAKE_CUDA_CACHE=DIR keeps each CPU build as DIR/HASH.so, HASH
 * that of kernels.cu: runs that time the same programs again (several
 * processes of one test) then compile each once. */
static char cache_path[4200];

static unsigned long long
file_hash (const char *path)
{
  unsigned long long h = 1469598103934665603ULL;   /* FNV-1a */
  FILE *f = fopen (path, "rb");
  int c;

  if (f == NULL)
    return 0;
  while ((c = fgetc (f)) != EOF)
    h = (h ^ (unsigned char) c) * 1099511628211ULL;
  fclose (f);
  return h;
}

static int
cached_build (const char *job, char *so, size_t len)
{
  const char *dir = getenv ("PRISM_FAKE_CUDA_CACHE");
  char source[4200];
  struct stat st;

  cache_path[0] = '\0';
  if (dir == NULL || !*dir)
    return -1;
  snprintf (source, sizeof source, "%s/kernels.cu", job);
  snprintf (cache_path, sizeof cache_path, "%s/%016llx.so", dir, file_hash (source));
  if (stat (cache_path, &st) != 0)
    return -1;
  snprintf (so, len, "%s", cache_path);
  return 0;
}

/* Copies the build into the cache (a rename: processes may race). */
static void
keep_build (const char *so)
{
  char tmp[4300], cmd[16384];

  if (!cache_path[0])
    return;
  snprintf (tmp, sizeof tmp, "%s.%d", cache_path, (int) getpid ());
  snprintf (cmd, sizeof cmd, "cp '%s' '%s' && mv '%s' '%s'", so, tmp, tmp, cache_path);
  if (system (cmd) != 0)
    fprintf (stderr, "fake-cuda: could not cache %s\n", so);
}

/* The CPU build of JOBDIR/kernels.cu, where JOBDIR is the worker's first
 * argument, against the kernel headers in @headers; writes its path to @so. */
static int
build_job_kernels (const char *headers, char *so, size_t len)
{
  char args[8192], cmd[16384];
  const char *job;
  size_t n;
  FILE *f = fopen ("/proc/self/cmdline", "rb");

  if (f == NULL)
    return -1;
  n = fread (args, 1, sizeof args - 1, f);
  fclose (f);
  args[n] = '\0';
  job = args + strlen (args) + 1;   /* prism-gpu-worker JOBDIR */
  if ((size_t) (job - args) >= n || strchr (job, '\'') != NULL || strchr (headers, '\'') != NULL)
    return -1;
  snprintf (so, len, "%s/fake-cpu-kernels.so", job);
  if (cached_build (job, so, len) == 0)
    return 0;
  snprintf (cmd, sizeof cmd,
            "g++ -std=c++17 -O1 -fPIC -shared -I'%s' -x c++ '%s/kernels.cu' -o '%s' >&2",
            headers, job, so);
  if (system (cmd) != 0)
    return -1;
  keep_build (so);
  return 0;
}

DECL (CUresult, cuModuleLoadData, (Module **module, const void *image))
{
  const char *path = getenv ("PRISM_FAKE_CUDA_KERNELS");
  char built[4200];
  struct stat st;
  Module *m;
  void *h;

  (void) image;   /* the real CUBIN, from NVRTC */
  if (path != NULL && stat (path, &st) == 0 && S_ISDIR (st.st_mode))
    {
      if (build_job_kernels (path, built, sizeof built) != 0)
        return 200;
      path = built;
    }
  if (path == NULL || (h = dlopen (path, RTLD_NOW | RTLD_LOCAL)) == NULL)
    return 200;   /* CUDA_ERROR_INVALID_IMAGE */
  m = calloc (1, sizeof *m);
  m->handle = h;
  *module = m;
  return 0;
}

DECL (CUresult, cuModuleUnload, (Module *m))
{
  while (m->functions != NULL)
    {
      Function *f = m->functions;
      m->functions = f->next;
      free (f);
    }
  dlclose (m->handle);
  free (m);
  return 0;
}

/* The bench's read-only L2 flush kernel, which prism-gpu-worker appends to
 * the source it compiles (not to the job's kernels.cu, whose CPU build is
 * what runs here): reads every 16-byte vector once. */
static unsigned int fake_flush_reads;

static void
fake_l2_flush (void *buf, void *n, void *sink)
{
  const unsigned int *p = buf;
  unsigned int x = 0;

  for (unsigned long long i = 0; i < (unsigned long long) (uintptr_t) n * 4; i++)
    x ^= p[i];
  if (x == 0x9e3779b9u)
    *(unsigned int *) sink = x;
  fake_flush_reads++;
}

DECL (CUresult, cuModuleGetFunction, (Function **fn, Module *m, const char *name))
{
  void *p = dlsym (m->handle, name);
  Function *f;

  if (p == NULL && strcmp (name, "prism_l2_flush") == 0)
    p = (void *) fake_l2_flush;
  if (p == NULL)
    return 500;   /* CUDA_ERROR_NOT_FOUND */
  f = calloc (1, sizeof *f);
  f->module = m;
  f->fn = p;
  snprintf (f->name, sizeof f->name, "%s", name);
  f->next = m->functions;
  m->functions = f;
  *fn = f;
  return 0;
}

DECL (CUresult, cuFuncSetAttribute, (Function *f, int attr, int value)) { (void) f; (void) attr; (void) value; return 0; }

/* Registers and local memory as ptxas might report them: numbers that
 * differ between kernels, so that a test sees they are per kernel. */
DECL (CUresult, cuFuncGetAttribute, (int *v, int attr, Function *f))
{
  if (attr == 4)          /* CU_FUNC_ATTRIBUTE_NUM_REGS */
    *v = 32 + (int) (strlen (f->name) % 8) * 8;
  else if (attr == 3)     /* CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES */
    *v = 0;
  else
    return 1;             /* CUDA_ERROR_INVALID_VALUE */
  return 0;
}

/* TRUE when $@var is "1" or names part of @name. */
static int
selected (const char *var, const char *name)
{
  const char *v = getenv (var);

  return v != NULL && *v && (strcmp (v, "1") == 0 || strstr (name, v) != NULL);
}

typedef void (*K1) (void *);
typedef void (*K2) (void *, void *);
typedef void (*K3) (void *, void *, void *);
typedef void (*K4) (void *, void *, void *, void *);
typedef void (*K5) (void *, void *, void *, void *, void *);
typedef void (*K6) (void *, void *, void *, void *, void *, void *);
typedef void (*K7) (void *, void *, void *, void *, void *, void *, void *);
typedef void (*K8) (void *, void *, void *, void *, void *, void *, void *, void *);

static unsigned int
count_params (void **params)
{
  unsigned int n = 0;

  while (n < 16 && params[n] != NULL)
    n++;
  return n;
}

/* Stream capture and graphs: while a stream captures, launches are
 * recorded (function, grid, shared memory, the argument values) instead of
 * run; a graph launch runs them again in order. */
typedef struct
{
  Function *f;
  unsigned int gx, gy, gz, smem, n_args;
  void *args[16];
  void *ptrs[17];
} Node;

typedef struct
{
  Node *nodes;
  unsigned int n;
} Graph;

static Graph *capturing;

static CUresult run_kernel (Function *f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int smem,
                            void **params);

DECL (CUresult, cuLaunchKernel, (Function *f, unsigned int gx, unsigned int gy, unsigned int gz,
                                 unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
                                 void *stream, void **params, void **extra))
{
  (void) bx; (void) by; (void) bz; (void) stream; (void) extra;
  if (capturing != NULL)
    {
      Node *n;
      unsigned int k = count_params (params);

      capturing->nodes = realloc (capturing->nodes, (capturing->n + 1) * sizeof *capturing->nodes);
      n = &capturing->nodes[capturing->n++];
      memset (n, 0, sizeof *n);
      n->f = f;
      n->gx = gx;
      n->gy = gy;
      n->gz = gz;
      n->smem = smem;
      for (unsigned int i = 0; i < k; i++)
        n->args[i] = *(void **) params[i];
      n->n_args = k;
      return 0;
    }
  return run_kernel (f, gx, gy, gz, smem, params);
}

/* CUlaunchConfig's leading fields; the attributes (programmatic stream
 * serialization) change nothing when blocks run one after the other. */
typedef struct
{
  unsigned int gx, gy, gz, bx, by, bz, smem;
  void *stream;
  void *attrs;
  unsigned int n_attrs;
} LaunchConfig;

static unsigned int launches_ex;

DECL (CUresult, cuLaunchKernelEx, (const LaunchConfig *c, Function *f, void **params, void **extra))
{
  launches_ex++;
  return cuLaunchKernel (f, c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->smem, c->stream, params, extra);
}

DECL (CUresult, cuStreamBeginCapture_v2, (void *stream, int mode))
{
  (void) stream; (void) mode;
  if (getenv ("PRISM_FAKE_CUDA_NO_GRAPH") != NULL)
    return 801;   /* CUDA_ERROR_NOT_SUPPORTED */
  if (capturing != NULL)
    return 900;   /* CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED */
  capturing = calloc (1, sizeof *capturing);
  return 0;
}

DECL (CUresult, cuStreamEndCapture, (void *stream, Graph **graph))
{
  (void) stream;
  *graph = capturing;
  capturing = NULL;
  return *graph != NULL ? 0 : 901;   /* CUDA_ERROR_STREAM_CAPTURE_INVALIDATED */
}

DECL (CUresult, cuGraphInstantiateWithFlags, (Graph **exec, Graph *graph, unsigned long long flags))
{
  (void) flags;
  *exec = graph;
  return 0;
}

static unsigned int graph_launches;

DECL (CUresult, cuGraphLaunch, (Graph *exec, void *stream))
{
  (void) stream;
  graph_launches++;
  for (unsigned int i = 0; i < exec->n; i++)
    {
      Node *n = &exec->nodes[i];
      CUresult r;

      /* run_kernel() counts parameters up to a NULL pointer. */
      for (unsigned int a = 0; a < n->n_args; a++)
        n->ptrs[a] = &n->args[a];
      n->ptrs[n->n_args] = NULL;
      r = run_kernel (n->f, n->gx, n->gy, n->gz, n->smem, n->ptrs);
      if (r != 0)
        return r;
    }
  return 0;
}

DECL (CUresult, cuGraphExecDestroy, (Graph *exec)) { (void) exec; return 0; }

DECL (CUresult, cuGraphDestroy, (Graph *graph))
{
  if (graph != NULL)
    free (graph->nodes);
  free (graph);
  return 0;
}

/* How the bench ran (for tests): $PRISM_FAKE_CUDA_STATS names a file that
 * gets "flushes N graph_launches N launches_ex N" when the process exits. */
__attribute__ ((destructor)) static void
write_stats (void)
{
  const char *path = getenv ("PRISM_FAKE_CUDA_STATS");
  FILE *f;

  if (path == NULL || (f = fopen (path, "w")) == NULL)
    return;
  fprintf (f, "flushes %u graph_launches %u launches_ex %u\n", fake_flush_reads, graph_launches, launches_ex);
  fclose (f);
}

static CUresult
run_kernel (Function *f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int smem, void **params)
{
  Dim3 *block_idx = dlsym (f->module->handle, "blockIdx");
  Dim3 *grid_dim = dlsym (f->module->handle, "gridDim");
  unsigned char **smem_ptr = dlsym (f->module->handle, "_ZN5prism3cpu4smemE");
  size_t bytes = ((size_t) smem + 255) / 128 * 128;
  unsigned char *mem = aligned_alloc (128, bytes);
  void *a[8] = { NULL, };
  unsigned int n = 0;

  if (selected ("PRISM_FAKE_CUDA_HANG", f->name))
    for (;;)
      pause ();
  if (selected ("PRISM_FAKE_CUDA_CRASH", f->name))
    abort ();
  if (selected ("PRISM_FAKE_CUDA_FAIL", f->name))
    {
      free (mem);
      return LAUNCH_FAILED;
    }
  /* prism-gpu-worker ends its parameter array with NULL. */
  n = count_params (params);
  for (unsigned int i = 0; i < n && i < 8; i++)
    a[i] = *(void **) params[i];
  if (f->fn == (void *) fake_l2_flush)
    {
      /* One pass over the buffer for the whole grid. */
      fake_l2_flush (a[0], a[1], a[2]);
      free (mem);
      return 0;
    }
  if (grid_dim != NULL)
    {
      grid_dim->x = gx;
      grid_dim->y = gy;
      grid_dim->z = gz;
    }
  for (unsigned int z = 0; z < gz; z++)
    for (unsigned int y = 0; y < gy; y++)
      for (unsigned int x = 0; x < gx; x++)
        {
          memset (mem, 0xff, bytes);
          if (block_idx != NULL)
            {
              block_idx->x = x;
              block_idx->y = y;
              block_idx->z = z;
            }
          if (smem_ptr != NULL)
            *smem_ptr = mem;
          /* Extra pointer arguments are ignored by the callee (System V
           * passes them in registers or on the caller's stack). */
          ((K8) f->fn) (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
        }
  free (mem);
  return 0;
}

DECL (CUresult, cuMemAlloc_v2, (CUdeviceptr *p, size_t bytes))
{
  void *m = aligned_alloc (256, (bytes + 255) / 256 * 256);

  if (m == NULL)
    return 2;   /* CUDA_ERROR_OUT_OF_MEMORY */
  memset (m, 0xff, (bytes + 255) / 256 * 256);
  *p = (CUdeviceptr) (uintptr_t) m;
  return 0;
}

DECL (CUresult, cuMemFree_v2, (CUdeviceptr p)) { free ((void *) (uintptr_t) p); return 0; }

DECL (CUresult, cuMemcpyHtoD_v2, (CUdeviceptr dst, const void *src, size_t n))
{
  memcpy ((void *) (uintptr_t) dst, src, n);
  return 0;
}

DECL (CUresult, cuMemcpyDtoH_v2, (void *dst, CUdeviceptr src, size_t n))
{
  memcpy (dst, (const void *) (uintptr_t) src, n);
  if (getenv ("PRISM_FAKE_CUDA_CORRUPT") != NULL && n >= sizeof (float))
    {
      float *f = dst;
      for (size_t i = 0; i < n / sizeof (float); i += 7)
        f[i] += 0.5f;
    }
  return 0;
}

DECL (CUresult, cuMemsetD8Async, (CUdeviceptr dst, unsigned char v, size_t n, void *stream))
{
  (void) stream;
  memset ((void *) (uintptr_t) dst, v, n);
  return 0;
}

DECL (CUresult, cuStreamCreate, (void **s, unsigned int flags)) { (void) flags; *s = (void *) 1; return 0; }
DECL (CUresult, cuStreamDestroy_v2, (void *s)) { (void) s; return 0; }
DECL (CUresult, cuStreamSynchronize, (void *s)) { (void) s; return 0; }
DECL (CUresult, cuEventCreate, (Event **e, unsigned int flags)) { (void) flags; *e = calloc (1, sizeof (Event)); return 0; }
DECL (CUresult, cuEventDestroy_v2, (Event *e)) { free (e); return 0; }
DECL (CUresult, cuEventRecord, (Event *e, void *s)) { (void) s; e->ms = now_ms (); return 0; }
DECL (CUresult, cuEventSynchronize, (Event *e)) { (void) e; return 0; }

DECL (CUresult, cuEventElapsedTime_v2, (float *ms, Event *start, Event *end))
{
  *ms = (float) (end->ms - start->ms);
  return 0;
}
