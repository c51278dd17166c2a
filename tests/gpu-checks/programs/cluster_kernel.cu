// The collapsible kernel of tests/ptx/data/cluster.cu on its own (that file also holds `dsmem`,
// which makes `ptx retarget` refuse the whole file): rank, size, index and a cluster barrier, but
// only its own block's shared memory, so it can be retargeted to a cluster of one and run.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1) clustered(int* out) {
  __shared__ int s[64];
  cg::cluster_group c = cg::this_cluster();
  s[threadIdx.x] = threadIdx.x + c.block_rank();
  c.sync();
  out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x] * c.num_blocks() + c.block_index().x;
}
