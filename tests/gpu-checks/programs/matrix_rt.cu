// The image-selection matrix through the CUDA runtime: one shared library per variant (its fatbin
// registered by the runtime when kit_rt dlopens it), the same kernel as matrix_kernel.cu.
#include <cuda_runtime.h>

#include <cstdio>

extern "C" __global__ void kit_axpb(float* y, const float* x, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

namespace {
int fail(const char* stage, cudaError_t e, char* msg, int len) {
  std::snprintf(msg, len, "%s: %s (%s)", stage, cudaGetErrorName(e), cudaGetErrorString(e));
  return 1;
}
}  // namespace

// Launches kit_axpb on 4096 elements and checks every result. 0 ok, 1 a CUDA error, 2 wrong values.
extern "C" int kit_rt_run(char* msg, int len) {
  // Plain arrays: no libstdc++ symbol newer than what any glibc system carries.
  const int n = 4096;
  static float x[n], y[n];
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 97);
    y[i] = -1.f;
  }
  float *dx = nullptr, *dy = nullptr;
  cudaError_t e;
  if ((e = cudaMalloc(&dx, n * sizeof(float))) != cudaSuccess)
    return fail("cudaMalloc", e, msg, len);
  if ((e = cudaMalloc(&dy, n * sizeof(float))) != cudaSuccess)
    return fail("cudaMalloc", e, msg, len);
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  kit_axpb<<<(n + 255) / 256, 256>>>(dy, dx, 3.f, 7.f, n);
  if ((e = cudaGetLastError()) != cudaSuccess) return fail("launch", e, msg, len);
  if ((e = cudaDeviceSynchronize()) != cudaSuccess) return fail("synchronize", e, msg, len);
  cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += y[i] != 3.f * x[i] + 7.f;
  std::snprintf(msg, len, wrong ? "%d of %d values wrong" : "ok", wrong, n);
  return wrong ? 2 : 0;
}

// The compute capability and name as the runtime reports them (what --report-cc changes).
extern "C" int kit_rt_cc(int* major, int* minor, char* name, int len) {
  cudaDeviceProp p{};
  cudaError_t e = cudaGetDeviceProperties(&p, 0);
  if (e != cudaSuccess) return fail("cudaGetDeviceProperties", e, name, len);
  *major = p.major;
  *minor = p.minor;
  std::snprintf(name, len, "%s", p.name);
  return 0;
}
