// A CUDA runtime program for the trace tests, built with -cudart static and -cudart shared. Against
// the fake driver the runtime cannot initialise (cuGetExportTable is not faked), so it prints the
// runtime's errors; the tests check that the shim saw the runtime's bootstrap and that the output
// is the same with and without the shim (driver-api.md 2.2 and 8).
#include <cstdio>

extern "C" __global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main() {
  int n = -1;
  cudaError_t e = cudaGetDeviceCount(&n);
  std::printf("cudaGetDeviceCount: %s\n", cudaGetErrorName(e));
  scale<<<1, 1>>>(nullptr, 2.0f, 0);
  e = cudaGetLastError();
  std::fprintf(stderr, "launch: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
