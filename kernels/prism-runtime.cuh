/* prism-runtime.cuh — the device runtime included by generated kernels
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "prism-platform.cuh"
#include "prism-tile.cuh"
#include "prism-elementwise.cuh"
#include "prism-reduce.cuh"
#include "prism-mma.cuh"
#include "prism-split.cuh"
#if !defined(__CUDACC_RTC__)
#include "prism-host.cuh"
#endif
