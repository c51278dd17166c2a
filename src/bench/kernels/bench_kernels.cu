// The device kernels of `smcompat bench`, built by nvcc at build time into one image per variant
// (a cubin per SASS arch, PTX at a few older compute levels; src/bench/CMakeLists.txt) and
// embedded in the library (include/smcompat/bench/kernels.hpp lists them). Every entry point is
// extern "C" so that cuModuleGetFunction finds it by a plain name, and takes only pointers and
// integers so that the host side can pass parameters without CUDA headers.
// Relies on: sm_75 or newer (globaltimer, __nanosleep, mma.sync m16n8k8); the bf16 mma kernel and
// the m16n8k16 shape need sm_80 and are compiled only there.
#include <cstddef>
#include <cstdint>

namespace {

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace

extern "C" {

// Holds the stream until the host sets *flag (host-mapped memory) so that the launches queued
// behind it start together and their queueing is not timed (nvbench's blocking kernel). It gives
// up after timeout_ns of GPU time so that a host that never releases it cannot hang the GPU.
// Parameters as measure.hpp's DeviceKernels contract has them.
__global__ void smc_spin(const volatile int* flag, unsigned long long timeout_ns) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  const unsigned long long start = global_ns();
  while (*flag == 0) {
    if (global_ns() - start > timeout_ns) return;
    __nanosleep(1000);
  }
}

// Does nothing: its launch-to-completion time is the launch latency.
__global__ void smc_empty() {}

// dst = src over `bytes` (a multiple of 16) as 16-byte vectors, grid-stride: SM copy bandwidth.
__global__ void smc_copy(const void* src, void* dst, unsigned long long bytes) {
  const uint4* __restrict__ in = static_cast<const uint4*>(src);
  uint4* __restrict__ out = static_cast<uint4*>(dst);
  const size_t n = bytes / 16;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = in[i];
  }
}

// STREAM triad a[i] = b[i] + s·c[i] over n floats, grid-stride, as float4 vectors (cuMemAlloc
// returns 256-byte aligned memory) with a scalar tail: the memory-bound kernel of the memory and
// jit suites (12 bytes moved per float).
__global__ void smc_triad(float* a, const float* b, const float* c, float s, unsigned long long n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t vectors = n / 4;
  float4* __restrict__ a4 = reinterpret_cast<float4*>(a);
  const float4* __restrict__ b4 = reinterpret_cast<const float4*>(b);
  const float4* __restrict__ c4 = reinterpret_cast<const float4*>(c);
  for (size_t i = first; i < vectors; i += stride) {
    const float4 x = b4[i];
    const float4 y = c4[i];
    a4[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
  }
  for (size_t i = vectors * 4 + first; i < n; i += stride) a[i] = b[i] + s * c[i];
}

}  // extern "C"

// The compute-bound kernels: each warp runs `iters` rounds of kMmaChains independent
// mma.sync m16n8k16 (f16 or bf16 inputs, f32 accumulators) on registers only, so the tensor
// cores, not memory, bound the time. FLOPs per launch = blocks × warps per block × iters ×
// kMmaChains × 4096 (2·16·8·16); host side: mma_flops() in kernels.hpp. Independent chains
// hide the mma latency. The sum of the accumulators is stored once per thread so that the
// compiler cannot drop the loop.
#define SMC_MMA_CHAINS 8

namespace {

// One m16n8k16 step, f16 inputs. Below sm_80 (the compute_75 PTX and sm_75 SASS images) the
// same FLOPs are done as two m16n8k8 steps, the shape Turing has.
__device__ __forceinline__ void mma_f16(float (&d)[4], const uint32_t (&a)[4],
                                        const uint32_t (&b)[2]) {
#if __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
      "{%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
      "{%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[2]), "r"(a[3]), "r"(b[1]));
#endif
}

#if __CUDA_ARCH__ >= 800 || !defined(__CUDA_ARCH__)
__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4],
                                         const uint32_t (&b)[2]) {
#if __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}
#endif

// Small values (1/1024 steps) keep the accumulators finite however long the loop runs.
__device__ __forceinline__ uint32_t pack_half2_bits(unsigned seed) {
  const uint32_t lo = 0x1400u + (seed & 0x3Fu);  // f16 around 2^-10
  return lo | (lo << 16);
}
#if __CUDA_ARCH__ >= 800 || !defined(__CUDA_ARCH__)
__device__ __forceinline__ uint32_t pack_bf162_bits(unsigned seed) {
  const uint32_t lo = 0x3A80u + (seed & 0x3Fu);  // bf16 around 2^-10
  return lo | (lo << 16);
}
#endif

}  // namespace

extern "C" {

__global__ void smc_mma_f16(float* out, int iters) {
  uint32_t a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = pack_half2_bits(threadIdx.x + i);
  for (int i = 0; i < 2; ++i) b[i] = pack_half2_bits(threadIdx.x * 3 + i);
  float acc[SMC_MMA_CHAINS][4] = {};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < SMC_MMA_CHAINS; ++c) mma_f16(acc[c], a, b);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < SMC_MMA_CHAINS; ++c) sum += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  out[static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

#if __CUDA_ARCH__ >= 800 || !defined(__CUDA_ARCH__)
// Absent from the sm_75 and compute_75 images (no bf16 mma before sm_80): cuModuleGetFunction
// answers NOT_FOUND there, which the jit suite records as a skip.
__global__ void smc_mma_bf16(float* out, int iters) {
  uint32_t a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = pack_bf162_bits(threadIdx.x + i);
  for (int i = 0; i < 2; ++i) b[i] = pack_bf162_bits(threadIdx.x * 3 + i);
  float acc[SMC_MMA_CHAINS][4] = {};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < SMC_MMA_CHAINS; ++c) mma_bf16(acc[c], a, b);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < SMC_MMA_CHAINS; ++c) sum += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  out[static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}
#endif

}  // extern "C"
