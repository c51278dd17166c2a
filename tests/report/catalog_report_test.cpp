// The catalog printers (report/catalog_report.hpp) on a tiny hand-written catalog: exact text and
// exact JSON, so that a change to what `smcompat gpus` and `smcompat arch` print is deliberate.
#include "smcompat/report/catalog_report.hpp"

#include <gtest/gtest.h>

namespace smcompat {
namespace {

constexpr const char* kCatalog = R"({
  "archs": [
    {"sm": 90, "name": "Hopper", "variants": ["a"], "smem_per_sm_kib": 228,
     "smem_per_block_optin_kib": 227, "reserved_smem_per_block": 1024, "threads_per_sm": 2048,
     "blocks_per_sm": 32, "features": ["tma", "wgmma"], "a_features": ["setmaxnreg"],
     "first_cuda": "11.8", "min_ptx_isa": "7.8", "tags": "D", "source": "PG"},
    {"sm": 120, "name": "Blackwell", "variants": ["a", "f"], "smem_per_sm_kib": 100,
     "features": ["tma"], "f_features": ["setmaxnreg"], "first_cuda": "12.8",
     "last_cuda": "13.1", "notes": "consumer", "source": "PG"}
  ],
  "families": [{"target": 120, "members": [120], "source": "PG"}],
  "ptx_isa": [],
  "cuda_releases": [],
  "gpus": [
    {"name": "H100 SXM", "aliases": ["H100"], "cc": "9.0", "sms": 132, "boost_mhz": 1980,
     "memory": "80 GB HBM3", "bandwidth_gbs": 3350, "peak_tflops": {"fp16_bf16": 989.5,
     "fp32": 67}, "tags": "3P", "source": "DS"},
    {"name": "RTX 5090", "cc": "12.0", "sms": 170, "memory": "32 GB GDDR7", "source": "DS"}
  ]
})";

class CatalogReport : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Catalog::from_json(kCatalog);
    ASSERT_TRUE(c.ok()) << c.error().what;
    cat_ = std::move(*c);
  }
  std::vector<const GpuSpec*> all_gpus() const {
    std::vector<const GpuSpec*> out;
    for (const auto& g : cat_.gpus()) out.push_back(&g);
    return out;
  }
  Catalog cat_;
};

TEST_F(CatalogReport, GpusText) {
  EXPECT_EQ(
      render_gpus_text(all_gpus(), Style::plain()),
      R"txt(GPU       CC    SMs  memory       GB/s  FP16/BF16  TF32  FP8  FP4  FP32  FP64  tags
H100 SXM  9.0   132  80 GB HBM3   3350      989.5     –    –    –    67     –  3P
RTX 5090  12.0  170  32 GB GDDR7     –          –     –    –    –     –     –
Dense peak TFLOPS (no sparsity); FP16/BF16 with FP32 accumulate. Tags: D derived, 3P third party, ? unverified. Sources: data/catalog.json.
)txt");
}

TEST_F(CatalogReport, ArchsText) {
  EXPECT_EQ(render_archs_text(cat_, Style::plain()),
            R"txt(target  CC    name       variants  smem/block  smem/SM  threads/SM  CUDA
sm_90   9.0   Hopper     a            227 KiB  228 KiB        2048  CUDA 11.8+
sm_120  12.0  Blackwell  a f                ?  100 KiB           ?  CUDA 12.8–13.1
`smcompat arch sm_120` shows one architecture in full.
)txt");
}

TEST_F(CatalogReport, ArchText) {
  ASSERT_EQ(cat_.archs().size(), 2u);
  EXPECT_EQ(render_arch_text(cat_, cat_.archs()[0], Style::plain()),
            R"txt(sm_90 (compute capability 9.0): Hopper
  targets          sm_90, sm_90a
  built by         CUDA 11.8+ (PTX ISA 7.8+)
  shared memory    228 KiB per SM, 227 KiB per block (opt-in = 232448 bytes)
                   1024 bytes per block reserved for the system
  threads / SM     2048   blocks / SM 32   registers / SM 65536   max regs / thread 255
  features         tma, wgmma
  with sm_90a      setmaxnreg
  runs SASS        sm_90, sm_90a
  JITs PTX         compute_90, compute_90a
  GPUs             H100 SXM
  source           PG [D]
)txt");
  EXPECT_EQ(render_arch_text(cat_, cat_.archs()[1], Style::plain()),
            R"txt(sm_120 (compute capability 12.0): Blackwell
  targets          sm_120, sm_120a, sm_120f
  built by         CUDA 12.8–13.1
  shared memory    100 KiB per SM, ? per block (opt-in)
  threads / SM     ?   blocks / SM ?   registers / SM 65536   max regs / thread 255
  features         tma
  with sm_120f      setmaxnreg
  runs SASS        sm_120, sm_120a, sm_120f
  JITs PTX         compute_90, compute_120, compute_120a, compute_120f
  note             consumer
  GPUs             RTX 5090
  source           PG
)txt");
}

TEST_F(CatalogReport, GpusJson) {
  EXPECT_EQ(gpus_json(all_gpus()), nlohmann::json::parse(R"json({
  "gpus": [
    {
      "aliases": [
        "H100"
      ],
      "bandwidth_gbs": 3350.0,
      "boost_mhz": 1980,
      "bus_width_bits": null,
      "cc": "9.0",
      "l2_mb": null,
      "memory": "80 GB HBM3",
      "memory_gib": null,
      "name": "H100 SXM",
      "nvlink_gbs": null,
      "pcie_gen": null,
      "peak_tflops": {
        "fp16_bf16": 989.5,
        "fp32": 67.0
      },
      "sms": 132,
      "source": "DS",
      "tags": "3P",
      "tensor_mhz": null
    },
    {
      "aliases": [],
      "bandwidth_gbs": null,
      "boost_mhz": null,
      "bus_width_bits": null,
      "cc": "12.0",
      "l2_mb": null,
      "memory": "32 GB GDDR7",
      "memory_gib": null,
      "name": "RTX 5090",
      "nvlink_gbs": null,
      "pcie_gen": null,
      "peak_tflops": {},
      "sms": 170,
      "source": "DS",
      "tags": "",
      "tensor_mhz": null
    }
  ],
  "schema": "smcompat.gpus/1"
})json"));
}

TEST_F(CatalogReport, ArchJson) {
  EXPECT_EQ(archs_json(cat_), nlohmann::json::parse(R"json({
  "archs": [
    {
      "a_features": [
        "setmaxnreg"
      ],
      "blocks_per_sm": 32,
      "cc": "9.0",
      "f_features": [],
      "features": [
        "tma",
        "wgmma"
      ],
      "first_cuda": "11.8",
      "last_cuda": null,
      "max_regs_per_thread": 255,
      "min_ptx_isa": "7.8",
      "name": "Hopper",
      "notes": "",
      "regs_per_sm": 65536,
      "reserved_smem_per_block": 1024,
      "sm": 90,
      "smem_per_block_optin": 232448,
      "smem_per_sm": 233472,
      "source": "PG",
      "tags": "D",
      "threads_per_sm": 2048,
      "variants": [
        "a"
      ]
    },
    {
      "a_features": [],
      "blocks_per_sm": null,
      "cc": "12.0",
      "f_features": [
        "setmaxnreg"
      ],
      "features": [
        "tma"
      ],
      "first_cuda": "12.8",
      "last_cuda": "13.1",
      "max_regs_per_thread": 255,
      "min_ptx_isa": null,
      "name": "Blackwell",
      "notes": "consumer",
      "regs_per_sm": 65536,
      "reserved_smem_per_block": 0,
      "sm": 120,
      "smem_per_block_optin": null,
      "smem_per_sm": 102400,
      "source": "PG",
      "tags": "",
      "threads_per_sm": null,
      "variants": [
        "a",
        "f"
      ]
    }
  ],
  "schema": "smcompat.arch/1"
})json"));
  EXPECT_EQ(arch_detail_json(cat_.archs()[1]),
            (nlohmann::json{{"schema", kArchSchema}, {"arch", arch_json(cat_.archs()[1])}}));
}

}  // namespace
}  // namespace smcompat
