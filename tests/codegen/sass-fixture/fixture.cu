/* fixture.cu — two kernels of known SASS for tests/codegen/test-sass-check.sh.
 *
 * fixture_strided reads like reduce_partials before issue 20: lane v adds
 * floats 8v … 8v+7 of every split, one 4-byte L2 load (__ldcg) at a time, so
 * each warp instruction uses 4 of the 32 bytes of every sector it touches.
 * fixture_vector copies 16-byte vectors, one per thread, coalesced.
 * fixture_ring streams 16-byte vectors through a two-buffer cp.async ring
 * and, in the same loop, loads one scalar synchronously.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
extern "C" __global__ void
fixture_strided (const float *__restrict__ part, float *__restrict__ out, int splits)
{
  float acc = 0.0f;
  for (int s = 0; s < splits; s++)
#pragma unroll
    for (int e = 0; e < 8; e++)
      acc += __ldcg (part + (long long) s * 8 * blockDim.x + threadIdx.x * 8 + e);
  out[threadIdx.x] = acc;
}

extern "C" __global__ void
fixture_vector (const float4 *__restrict__ in, float4 *__restrict__ out)
{
  out[threadIdx.x] = in[threadIdx.x];
}

extern "C" __global__ void
fixture_ring (const float4 *__restrict__ in, const float *__restrict__ scale,
              float4 *__restrict__ out, int tiles)
{
  __shared__ float4 ring[2][128];
  float4 acc = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);

  for (int t = 0; t < tiles; t++)
    {
      unsigned dst = (unsigned) __cvta_generic_to_shared (&ring[t & 1][threadIdx.x]);
      asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;\n"
                    :: "r"(dst), "l"(in + (long long) t * blockDim.x + threadIdx.x));
      asm volatile ("cp.async.commit_group;\n" ::);
      asm volatile ("cp.async.wait_group 0;\n" ::);
      __syncthreads ();
      const float s = scale[t];
      const float4 v = ring[t & 1][threadIdx.x];
      acc.x += s * v.x;
      acc.y += s * v.y;
      acc.z += s * v.z;
      acc.w += s * v.w;
      __syncthreads ();
    }
  out[threadIdx.x] = acc;
}
