// The kernel of the image-selection matrix (docs/gpu-checks check 2): built once per fatbin
// variant (tests/gpu-checks/CMakeLists.txt) and loaded by kit_driver through the driver API.
// Integers in, integers out: the result is exact whichever image the driver chose.
extern "C" __global__ void kit_axpb(float* y, const float* x, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}
