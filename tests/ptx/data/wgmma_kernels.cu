// ptx lower fixture: one wgmma.mma_async per kernel, in the forms the lowering handles (A from a
// descriptor or registers, K-major and MN-major operands, f32 and f16 accumulators, f16, bf16,
// tf32 and e4m3 inputs, N from 8 to 256, negated inputs). The shared-memory layout (LBO, SBO,
// swizzle mode) and whether D accumulates are kernel parameters, so one kernel is run with
// every layout. Each thread stores its D registers to out[tid * regs + i]; D starts from out.
// Built with nvcc -ptx -arch=sm_90a by tests/ptx/lower_test.cpp.
#include <cstdint>

__device__ inline uint64_t smem_desc(const void* smem, uint32_t offset, uint32_t lbo, uint32_t sbo,
                                     uint32_t mode) {
  const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(smem)) + offset;
  return static_cast<uint64_t>((a >> 4) & 0x3FFF) |
         (static_cast<uint64_t>((lbo >> 4) & 0x3FFF) << 16) |
         (static_cast<uint64_t>((sbo >> 4) & 0x3FFF) << 32) | (static_cast<uint64_t>(mode) << 62);
}

__device__ inline void stage(uint8_t* dst, const uint8_t* src, int bytes) {
  for (int i = threadIdx.x; i < bytes; i += blockDim.x) dst[i] = src[i];
}

// Layout parameters of the A and B descriptors: byte offset of the start, LBO, SBO, swizzle mode.
#define LAYOUT_PARAMS                                                                              \
  uint32_t a_off, uint32_t a_lbo, uint32_t a_sbo, uint32_t a_mode, uint32_t b_off, uint32_t b_lbo, \
      uint32_t b_sbo, uint32_t b_mode, int accumulate

extern "C" __global__ void __launch_bounds__(128)
    wgmma_f16_ss_n64_kk(float* out, const uint8_t* ga, const uint8_t* gb, const uint32_t* gar,
                        LAYOUT_PARAMS) {
  __shared__ __align__(1024) uint8_t sa[8192];
  __shared__ __align__(1024) uint8_t sb[8192];
  stage(sa, ga, 8192);
  stage(sb, gb, 8192);
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = out[threadIdx.x * 32 + i];
  const uint64_t da = smem_desc(sa, a_off, a_lbo, a_sbo, a_mode);
  const uint64_t db = smem_desc(sb, b_off, b_lbo, b_sbo, b_mode);
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.fence.sync.aligned;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
      "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "
      "%28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n"
      "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(accumulate)
      : "memory");
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i];
}

extern "C" __global__ void __launch_bounds__(128)
    wgmma_f16_ss_n64_mn(float* out, const uint8_t* ga, const uint8_t* gb, const uint32_t* gar,
                        LAYOUT_PARAMS) {
  __shared__ __align__(1024) uint8_t sa[8192];
  __shared__ __align__(1024) uint8_t sb[8192];
  stage(sa, ga, 8192);
  stage(sb, gb, 8192);
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = out[threadIdx.x * 32 + i];
  const uint64_t da = smem_desc(sa, a_off, a_lbo, a_sbo, a_mode);
  const uint64_t db = smem_desc(sb, b_off, b_lbo, b_sbo, b_mode);
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.fence.sync.aligned;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
      "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "
      "%28, %29, %30, %31}, %32, %33, p, 1, 1, 1, 1;\n"
      "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(accumulate)
      : "memory");
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i];
}

extern "C" __global__ void __launch_bounds__(128)
    wgmma_bf16_ss_n32_kn(float* out, const uint8_t* ga, const uint8_t* gb, const uint32_t* gar,
                         LAYOUT_PARAMS) {
  __shared__ __align__(1024) uint8_t sa[8192];
  __shared__ __align__(1024) uint8_t sb[8192];
  stage(sa, ga, 8192);
  stage(sb, gb, 8192);
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  float d[16];
  for (int i = 0; i < 16; ++i) d[i] = out[threadIdx.x * 16 + i];
  const uint64_t da = smem_desc(sa, a_off, a_lbo, a_sbo, a_mode);
  const uint64_t db = smem_desc(sb, b_off, b_lbo, b_sbo, b_mode);
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.fence.sync.aligned;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, "
      "%9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, -1, 0, 1;\n"
      "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(accumulate)
      : "memory");
  for (int i = 0; i < 16; ++i) out[threadIdx.x * 16 + i] = d[i];
}

extern "C" __global__ void __launch_bounds__(128)
    wgmma_f16_rs_n16(float* out, const uint8_t* ga, const uint8_t* gb, const uint32_t* gar,
                     LAYOUT_PARAMS) {
  __shared__ __align__(1024) uint8_t sa[8192];
  __shared__ __align__(1024) uint8_t sb[8192];
  stage(sa, ga, 8192);
  stage(sb, gb, 8192);
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  float d[8];
  for (int i = 0; i < 8; ++i) d[i] = out[threadIdx.x * 8 + i];
  uint32_t ar[4];
  for (int i = 0; i < 4; ++i) ar[i] = gar[threadIdx.x * 4 + i];
  const uint64_t db = smem_desc(sb, b_off, b_lbo, b_sbo, b_mode);
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
      "wgmma.fence.sync.aligned;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, "
      "%9, %10, %11}, %12, p, -1, 1, 0;\n"
      "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7])
      : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(accumulate)
      : "memory");
  for (int i = 0; i < 8; ++i) out[threadIdx.x * 8 + i] = d[i];
}

extern "C" __global__ void __launch_bounds__(128)
    wgmma_f16acc_ss_n64(uint32_t* out, const uint8_t* ga, const uint8_t* gb, const uint32_t* gar,
                        LAYOUT_PARAMS) {
  __shared__ __align__(1024) uint8_t sa[8192];
  __shared__ __align__(1024) uint8_t sb[8192];
  stage(sa, ga, 8192);
  stage(sb, gb, 8192);
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  uint32_t d[16];
  for (int i = 0; i < 16; ++i) d[i] = out[threadIdx.x * 16 + i];
  const uint64_t da = smem_desc(sa, a_off, a_lbo, a_sbo, a_mode);
  const uint64_t db = smem_desc(sb, b_off, b_lbo, b_sbo, b_mode);
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.fence.sync.aligned;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
      "%10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1, 0, 0;\n"
      "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),
        "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]),
        "+r"(d[14]), "+r"(d[15])
      : "l"(da), "l"(db), "r"(accumulate)
      : "memory");
  for (int i = 0; i < 16; ++i) out[threadIdx.x * 16 + i] = d[i];
}

extern "C" __global__ void __launch_bounds__(128)
    wgmma_tf32_ss_n16(float* out, const uint8_t* ga, const uint8_t* gb, const uint32_t* gar,
                      LAYOUT_PARAMS) {
  __shared__ __align__(1024) uint8_t sa[8192];
  __shared__ __align__(1024) uint8_t sb[8192];
  stage(sa, ga, 8192);
  stage(sb, gb, 8192);
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  float d[8];
  for (int i = 0; i < 8; ++i) d[i] = out[threadIdx.x * 8 + i];
  const uint64_t da = smem_desc(sa, a_off, a_lbo, a_sbo, a_mode);
  const uint64_t db = smem_desc(sb, b_off, b_lbo, b_sbo, b_mode);
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
      "wgmma.fence.sync.aligned;\n"
      "wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, "
      "%9, p, 1, 1;\n"
      "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7])
      : "l"(da), "l"(db), "r"(accumulate)
      : "memory");
  for (int i = 0; i < 8; ++i) out[threadIdx.x * 8 + i] = d[i];
}

extern "C" __global__ void __launch_bounds__(128)
    wgmma_e4m3_ss_n32(float* out, const uint8_t* ga, const uint8_t* gb, const uint32_t* gar,
                      LAYOUT_PARAMS) {
  __shared__ __align__(1024) uint8_t sa[8192];
  __shared__ __align__(1024) uint8_t sb[8192];
  stage(sa, ga, 8192);
  stage(sb, gb, 8192);
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  float d[16];
  for (int i = 0; i < 16; ++i) d[i] = out[threadIdx.x * 16 + i];
  const uint64_t da = smem_desc(sa, a_off, a_lbo, a_sbo, a_mode);
  const uint64_t db = smem_desc(sb, b_off, b_lbo, b_sbo, b_mode);
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.fence.sync.aligned;\n"
      "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, "
      "%9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1;\n"
      "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(accumulate)
      : "memory");
  for (int i = 0; i < 16; ++i) out[threadIdx.x * 16 + i] = d[i];
}

extern "C" __global__ void __launch_bounds__(128)
    wgmma_f16_ss_n256(float* out, const uint8_t* ga, const uint8_t* gb, const uint32_t* gar,
                      LAYOUT_PARAMS) {
  __shared__ __align__(1024) uint8_t sa[8192];
  __shared__ __align__(1024) uint8_t sb[8192];
  stage(sa, ga, 8192);
  stage(sb, gb, 8192);
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  float d[128];
  for (int i = 0; i < 128; ++i) d[i] = out[threadIdx.x * 128 + i];
  const uint64_t da = smem_desc(sa, a_off, a_lbo, a_sbo, a_mode);
  const uint64_t db = smem_desc(sb, b_off, b_lbo, b_sbo, b_mode);
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.fence.sync.aligned;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, "
      "%9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, "
      "%27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, "
      "%45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, "
      "%63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, "
      "%81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, "
      "%99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, "
      "%114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, "
      "%129, p, 1, 1, 0, 0;\n"
      "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db), "r"(accumulate)
      : "memory");
  for (int i = 0; i < 128; ++i) out[threadIdx.x * 128 + i] = d[i];
}

extern "C" __global__ void __launch_bounds__(128)
    wgmma_bf16_ss_n8(float* out, const uint8_t* ga, const uint8_t* gb, const uint32_t* gar,
                     LAYOUT_PARAMS) {
  __shared__ __align__(1024) uint8_t sa[8192];
  __shared__ __align__(1024) uint8_t sb[8192];
  stage(sa, ga, 8192);
  stage(sb, gb, 8192);
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  float d[4];
  for (int i = 0; i < 4; ++i) d[i] = out[threadIdx.x * 4 + i];
  const uint64_t da = smem_desc(sa, a_off, a_lbo, a_sbo, a_mode);
  const uint64_t db = smem_desc(sb, b_off, b_lbo, b_sbo, b_mode);
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.fence.sync.aligned;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, "
      "0;\n"
      "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(da), "l"(db), "r"(accumulate)
      : "memory");
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}
