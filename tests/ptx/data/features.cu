// One kernel per row of data/ptx_features.json, each using that feature through inline PTX.
// Built by the tests with `nvcc -ptx -arch=compute_90`; the tests split the output per kernel,
// set .target to sm_120, sm_100a, sm_90 (and others) and compare ptxas's accept/reject with the
// verdict smcompat computes from the feature table. The kernel name is `feat_<row id>`.
#include <cstdint>

#define SMEM_ADDR(p) static_cast<uint32_t>(__cvta_generic_to_shared(p))

// A bulk copy into `n` bytes of shared memory completing on an mbarrier (`bar`): `ptx` takes the
// buffer as %0, then the operands that follow.
#define FEAT_BULK_COPY(name, params, n, ptx, ...)                    \
  extern "C" __global__ void name params {                           \
    __shared__ __align__(n) uint8_t buf[n];                          \
    __shared__ __align__(8) uint64_t bar;                            \
    asm volatile(ptx ::"r"(SMEM_ADDR(buf)), __VA_ARGS__ : "memory"); \
  }

// mma.sync with four f32 accumulators: D and C in %0-%3, A in %4, B in %5; the block-scaled forms
// take the scale in %6.
#define FEAT_MMA(name, ptx)                                                      \
  extern "C" __global__ void name(float* out, uint32_t a, uint32_t b) {          \
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;                                        \
    asm volatile(ptx : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a), "r"(b)); \
    out[threadIdx.x] = d0 + d1 + d2 + d3;                                        \
  }
#define FEAT_MMA_SCALED(name, ptx)                                                       \
  extern "C" __global__ void name(float* out, uint32_t a, uint32_t b, uint32_t s) {      \
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;                                                \
    asm volatile(ptx : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a), "r"(b), "r"(s)); \
    out[threadIdx.x] = d0 + d1 + d2 + d3;                                                \
  }
// cvt of two f32 to a packed pair of 8-bit floats (%0 the pair, %1 and %2 the inputs).
#define FEAT_CVT_X2(name, ptx)                                       \
  extern "C" __global__ void name(uint16_t* out, float a, float b) { \
    uint16_t r;                                                      \
    asm volatile(ptx : "=h"(r) : "f"(a), "f"(b));                    \
    *out = r;                                                        \
  }

extern "C" __global__ void feat_wgmma_fence() {
  asm volatile(
      "wgmma.fence.sync.aligned;\n\twgmma.commit_group.sync.aligned;\n\t"
      "wgmma.wait_group.sync.aligned 0;" ::
          : "memory");
}
extern "C" __global__ void feat_wgmma_mma_async(float* out, uint64_t da, uint64_t db) {
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "l"(da), "l"(db));
  out[threadIdx.x] = d0 + d1 + d2 + d3;
}
extern "C" __global__ void feat_tcgen05_fence() {
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
extern "C" __global__ void feat_tcgen05_alloc() {
  __shared__ uint32_t slot;
  asm volatile(
      "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(SMEM_ADDR(&slot))
      : "memory");
}
extern "C" __global__ void feat_setmaxnreg() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
}
extern "C" __global__ void feat_tensormap_replace(uint64_t addr) {
  __shared__ __align__(128) uint8_t tmap[128];
  asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"r"(
                   SMEM_ADDR(tmap)),
               "l"(addr)
               : "memory");
}
extern "C" __global__ void feat_tensormap_cp_fenceproxy(uint64_t gaddr) {
  __shared__ __align__(128) uint8_t tmap[128];
  asm volatile(
      "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
      "[%0], [%1], 128;" ::"l"(gaddr),
      "r"(SMEM_ADDR(tmap))
      : "memory");
}
extern "C" __global__ void feat_fence_proxy_tensormap(uint64_t gaddr) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(gaddr) : "memory");
}
FEAT_BULK_COPY(feat_cp_async_bulk, (const void* src), 16,
               "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 16, "
               "[%2];",
               "l"(src), "r"(SMEM_ADDR(&bar)))
FEAT_BULK_COPY(feat_cp_async_bulk_tensor, (const void* tmap, int c0), 128,
               "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
               "[%0], [%1, {%2}], [%3];",
               "l"(tmap), "r"(c0), "r"(SMEM_ADDR(&bar)))
FEAT_BULK_COPY(feat_cp_async_bulk_multicast, (const void* src, uint16_t mask), 16,
               "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::"
               "cluster [%0], [%1], 16, [%2], %3;",
               "l"(src), "r"(SMEM_ADDR(&bar)), "h"(mask))
FEAT_BULK_COPY(feat_cp_async_bulk_tensor_multicast, (const void* tmap, int c0, uint16_t mask), 128,
               "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes."
               "multicast::cluster [%0], [%1, {%2}], [%3], %4;",
               "l"(tmap), "r"(c0), "r"(SMEM_ADDR(&bar)), "h"(mask))
extern "C" __global__ void feat_mbarrier_init() {
  __shared__ __align__(8) uint64_t bar;
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(SMEM_ADDR(&bar)) : "memory");
}
extern "C" __global__ void feat_mbarrier_expect_tx(uint64_t* out) {
  __shared__ __align__(8) uint64_t bar;
  uint64_t state;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], 16;"
               : "=l"(state)
               : "r"(SMEM_ADDR(&bar))
               : "memory");
  *out = state;
}
extern "C" __global__ void feat_mbarrier_try_wait(uint64_t state, int* out) {
  __shared__ __align__(8) uint64_t bar;
  uint32_t ok;
  asm volatile(
      "{\n\t.reg .pred p;\n\tmbarrier.try_wait.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, "
      "p;\n\t}"
      : "=r"(ok)
      : "r"(SMEM_ADDR(&bar)), "l"(state)
      : "memory");
  *out = ok;
}
extern "C" __global__ void feat_barrier_cluster() {
  asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
}
extern "C" __global__ void feat_mapa(uint32_t* out, uint32_t rank) {
  __shared__ uint32_t x;
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(SMEM_ADDR(&x)), "r"(rank));
  *out = r;
}
extern "C" __global__ void feat_ld_shared_cluster(uint32_t* out, uint32_t addr) {
  uint32_t v;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  *out = v;
}
extern "C" __global__ void feat_cluster_sreg(uint32_t* out) {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  *out = r;
}
extern "C" __global__ void feat_elect_sync(uint32_t* out) {
  uint32_t r;
  asm volatile("{\n\t.reg .pred p;\n\telect.sync %0|p, 0xffffffff;\n\t}" : "=r"(r));
  *out = r;
}
extern "C" __global__ void feat_griddepcontrol() {
  asm volatile("griddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;" ::: "memory");
}
extern "C" __global__ void feat_clusterlaunchcontrol() {
  __shared__ __align__(16) uint8_t resp[16];
  __shared__ __align__(8) uint64_t bar;
  asm volatile(
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], "
      "[%1];" ::"r"(SMEM_ADDR(resp)),
      "r"(SMEM_ADDR(&bar))
      : "memory");
}
extern "C" __global__ void feat_stmatrix(uint32_t v) {
  __shared__ __align__(16) uint8_t buf[256];
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(SMEM_ADDR(buf)), "r"(v)
               : "memory");
}
extern "C" __global__ void feat_ldmatrix(uint32_t* out) {
  __shared__ __align__(16) uint8_t buf[256];
  uint32_t v;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
               : "=r"(v)
               : "r"(SMEM_ADDR(buf)));
  *out = v;
}
FEAT_MMA(
    feat_mma_sync_f16,
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %4, %4, %4}, {%5, "
    "%5}, {%0, %1, %2, %3};")
FEAT_MMA(feat_mma_sync_fp8,
         "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %4, %4, %4}, "
         "{%5, %5}, {%0, %1, %2, %3};")
FEAT_MMA(
    feat_mma_kind_f8f6f4,
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32 {%0, %1, %2, %3}, {%4, %4, "
    "%4, %4}, {%5, %5}, {%0, %1, %2, %3};")
FEAT_MMA_SCALED(
    feat_mma_block_scale_mxf8f6f4,
    "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3."
    "f32.ue8m0 {%0, %1, %2, %3}, {%4, %4, %4, %4}, {%5, %5}, {%0, %1, %2, %3}, %6, {0, 0}, %6, "
    "{0, 0};")
FEAT_MMA_SCALED(
    feat_mma_block_scale_mxf4,
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32."
    "ue8m0 {%0, %1, %2, %3}, {%4, %4, %4, %4}, {%5, %5}, {%0, %1, %2, %3}, %6, {0, 0}, %6, {0, "
    "0};")
FEAT_MMA_SCALED(
    feat_mma_block_scale_mxf4nvf4,
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1."
    "f32.ue4m3 {%0, %1, %2, %3}, {%4, %4, %4, %4}, {%5, %5}, {%0, %1, %2, %3}, %6, {0, 0}, %6, "
    "{0, 0};")
FEAT_CVT_X2(feat_cvt_e4m3x2, "cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;")
extern "C" __global__ void feat_cvt_e2m1x2(uint32_t* out, float a, float b) {
  uint32_t r;
  asm volatile(
      "{\n\t.reg .b8 t;\n\tcvt.rn.satfinite.e2m1x2.f32 t, %1, %2;\n\tcvt.u32.u8 %0, t;\n\t}"
      : "=r"(r)
      : "f"(a), "f"(b));
  *out = r;
}
FEAT_CVT_X2(feat_cvt_e3m2x2, "cvt.rn.satfinite.e3m2x2.f32 %0, %1, %2;")
FEAT_CVT_X2(feat_cvt_e2m3x2, "cvt.rn.satfinite.e2m3x2.f32 %0, %1, %2;")
FEAT_CVT_X2(feat_cvt_ue8m0x2, "cvt.rz.satfinite.ue8m0x2.f32 %0, %1, %2;")
extern "C" __global__ void feat_multimem(uint32_t* out, uint64_t addr) {
  uint32_t r;
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.u32 %0, [%1];"
               : "=r"(r)
               : "l"(addr)
               : "memory");
  *out = r;
}
extern "C" __global__ void feat_redux_sync(uint32_t* out, uint32_t v) {
  uint32_t r;
  asm volatile("redux.sync.add.u32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(v));
  *out = r;
}
extern "C" __global__ void feat_cp_async(const uint32_t* src) {
  __shared__ __align__(16) uint32_t buf[4];
  asm volatile(
      "cp.async.ca.shared.global [%0], [%1], 4;\n\tcp.async.wait_all;" ::"r"(SMEM_ADDR(buf)),
      "l"(src)
      : "memory");
}
extern "C" __global__ void feat_fence_proxy_async() {
  asm volatile("fence.proxy.async;" ::: "memory");
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) feat_cluster_dims(int* out) {
  out[blockIdx.x] = 1;
}
extern "C" __global__ void feat_cluster_scope() {
  asm volatile("fence.acq_rel.cluster;" ::: "memory");
}
