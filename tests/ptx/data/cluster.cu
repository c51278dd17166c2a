// Retarget fixture: kernels with __cluster_dims__ (built for sm_90). `clustered` uses cluster
// rank, size, index and barriers but only its own shared memory, so it can be collapsed to a
// cluster of one; `dsmem` reads a neighbour block's shared memory and must be refused.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1) clustered(int* out) {
  __shared__ int s[64];
  cg::cluster_group c = cg::this_cluster();
  s[threadIdx.x] = threadIdx.x + c.block_rank();
  c.sync();
  out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x] * c.num_blocks() + c.block_index().x;
}

// -DSMCOMPAT_COLLAPSIBLE_ONLY leaves it out: the GPU kit retargets and runs `clustered` alone
// (tests/gpu-checks/steps/step_ptx.py), since `ptx retarget` refuses a file that holds dsmem.
#ifndef SMCOMPAT_COLLAPSIBLE_ONLY
extern "C" __global__ void __cluster_dims__(2, 1, 1) dsmem(int* out) {
  __shared__ int s[64];
  cg::cluster_group c = cg::this_cluster();
  s[threadIdx.x] = threadIdx.x;
  c.sync();
  int* peer = c.map_shared_rank(s, (c.block_rank() + 1) % 2);
  out[blockIdx.x * 64 + threadIdx.x] = peer[threadIdx.x];
  c.sync();
}
#endif
