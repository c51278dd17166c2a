// Retarget fixture: a warp-specialised kernel in the style of Hopper GEMMs (a producer warp group
// gives registers away, consumer warp groups take them) built for sm_90a, and a plain kernel.
#include <cstdint>

extern "C" __global__ void __launch_bounds__(384, 1)
    warp_specialized(float* out, const float* in, int n) {
  const int warp_group = threadIdx.x / 128;
  if (warp_group == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (threadIdx.x == 0) out[blockIdx.x] = 0.f;
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    float acc = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc += in[i] * in[i];
    atomicAdd(&out[blockIdx.x], acc);
  }
}

extern "C" __global__ void plain(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.f * in[i];
}
