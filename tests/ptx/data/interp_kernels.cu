// Kernels for the interpreter tests (tests/ptx/interp_test.cpp), compiled with nvcc -ptx
// -arch=sm_90a at test time and interpreted; results are compared with a CPU reference.
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned pack_half2(__half lo, __half hi) {
  return static_cast<unsigned>(__half_as_ushort(lo)) |
         (static_cast<unsigned>(__half_as_ushort(hi)) << 16);
}

// C[32][16] = A[32][K] * B[K][16] (row-major f16 in, f32 out) with mma.sync m16n8k16; 64 threads:
// warp w computes rows 16w..16w+15. Fragments are gathered from shared memory by plain indexing
// (ISA "Matrix Fragments for mma.m16n8k16 with floating point type").
extern "C" __global__ void mma_matmul(const __half* a, const __half* b, float* c, int K) {
  __shared__ __half as[32][16];
  __shared__ __half bs[16][16];
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane >> 2, t = lane & 3;
  float acc[2][4] = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int i = tid; i < 32 * 16; i += blockDim.x)
      as[i / 16][i % 16] = a[(i / 16) * K + k0 + i % 16];
    for (int i = tid; i < 16 * 16; i += blockDim.x)
      bs[i / 16][i % 16] = b[(k0 + i / 16) * 16 + i % 16];
    __syncthreads();
    const __half* r0 = as[16 * warp + g];
    const __half* r8 = as[16 * warp + g + 8];
    unsigned a0 = pack_half2(r0[2 * t], r0[2 * t + 1]);
    unsigned a1 = pack_half2(r8[2 * t], r8[2 * t + 1]);
    unsigned a2 = pack_half2(r0[2 * t + 8], r0[2 * t + 9]);
    unsigned a3 = pack_half2(r8[2 * t + 8], r8[2 * t + 9]);
    for (int nt = 0; nt < 2; ++nt) {
      int n = nt * 8 + g;
      unsigned b0 = pack_half2(bs[2 * t][n], bs[2 * t + 1][n]);
      unsigned b1 = pack_half2(bs[2 * t + 8][n], bs[2 * t + 9][n]);
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
          "{%8, %9}, {%0, %1, %2, %3};"
          : "+f"(acc[nt][0]), "+f"(acc[nt][1]), "+f"(acc[nt][2]), "+f"(acc[nt][3])
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    __syncthreads();
  }
  for (int nt = 0; nt < 2; ++nt) {
    int row = 16 * warp + g, col = nt * 8 + 2 * t;
    c[row * 16 + col] = acc[nt][0];
    c[row * 16 + col + 1] = acc[nt][1];
    c[(row + 8) * 16 + col] = acc[nt][2];
    c[(row + 8) * 16 + col + 1] = acc[nt][3];
  }
}

// out[blockIdx.x] = sum of the block's elements of x: warp shuffles, then shared memory.
extern "C" __global__ void block_sum(const int* x, int* out, int n) {
  __shared__ int warp_sums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? x[i] : 0;
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : 0;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

extern "C" __global__ void saxpy(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
