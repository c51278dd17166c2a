// The shared-memory opt-in check (docs/gpu-checks check 5): 1 KiB of static shared memory plus
// `words` ints of dynamic shared memory, every word written and summed, so that a launch at the
// limit really uses it. out = 255 + words.
extern "C" __global__ void kit_smem(int* out, int words) {
  __shared__ int fixed[256];
  extern __shared__ int dyn[];
  fixed[threadIdx.x] = threadIdx.x;
  for (int i = threadIdx.x; i < words; i += blockDim.x) dyn[i] = 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = fixed[255];
    for (int i = 0; i < words; ++i) s += dyn[i];
    *out = s;
  }
}
