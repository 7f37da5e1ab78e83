/* fake-nvml.c — a stand-in for libnvidia-ml.so.1 with fixed clocks
 *
 * Test-only: the device of the fake driver (PCI bus 0000:19:00.0) runs its
 * SMs at 1755 MHz of at most 1980 MHz.  Any other bus id is unknown, as
 * NVML says of a device it does not manage.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#define EXPORT __attribute__ ((visibility ("default")))
#define DECL(ret, name, args) EXPORT ret name args; ret name args

enum { SUCCESS = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_FOUND = 6 };

static int initialized;
static int device = 42;

DECL (int, nvmlInit_v2, (void)) { initialized = 1; return SUCCESS; }
DECL (int, nvmlShutdown, (void)) { initialized = 0; return SUCCESS; }

DECL (const char *, nvmlErrorString, (int r))
{
  return r == NOT_FOUND ? "Not Found" : r == UNINITIALIZED ? "Uninitialized" : "Invalid Argument";
}

DECL (int, nvmlDeviceGetHandleByPciBusId_v2, (const char *id, void **d))
{
  if (!initialized)
    return UNINITIALIZED;
  if (strcmp (id, "0000:19:00.0") != 0)
    return NOT_FOUND;
  *d = &device;
  return SUCCESS;
}

DECL (int, nvmlDeviceGetHandleByIndex_v2, (unsigned int index, void **d))
{
  if (!initialized)
    return UNINITIALIZED;
  if (index != 0)
    return INVALID_ARGUMENT;
  *d = &device;
  return SUCCESS;
}

DECL (int, nvmlDeviceGetClockInfo, (void *d, int type, unsigned int *mhz))
{
  if (!initialized || d != &device || type != 1)
    return INVALID_ARGUMENT;
  *mhz = 1755;
  return SUCCESS;
}

DECL (int, nvmlDeviceGetMaxClockInfo, (void *d, int type, unsigned int *mhz))
{
  if (!initialized || d != &device || type != 1)
    return INVALID_ARGUMENT;
  *mhz = 1980;
  return SUCCESS;
}
