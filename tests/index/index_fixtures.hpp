// Hand-built wheel records for the index tests (advise, query, diff, printers, CLI): small and
// realistic, so that every expected answer can be derived by hand from the compatibility rules
// (../shared/reference/compatibility-rules.md: SASS runs on its own major at an equal or higher
// minor, PTX JIT-compiles forward). The releases mirror real ones in shape, not in full detail:
//   bitsandbytes 0.45.1/0.45.2: libbitsandbytes_cuda{118,121,124,126}.so, sm_50 … sm_90 and
//     compute_90 (PTX ISA of the CUDA release); 0.45.3 adds libbitsandbytes_cuda128.so with
//     sm_100 and sm_120 (and compute_120@8.7).
//   torch 2.6.0 (CUDA 12.4: sm_50 … sm_90, compute_90@8.4), 2.8.0 and 2.9.0 (CUDA 12.8: … sm_120,
//     compute_120@8.7), pinning triton on x86_64 only (as torch's METADATA does); torch 2.9.0
//     for aarch64 too.
//   triton 3.4.0/3.5.0: no device code in the wheel (it compiles at run time).
//   xformers 0.0.31 (torch==2.7.1; sm_80 sm_86 sm_90 + compute_90@8.4), 0.0.32.post2
//     (torch==2.8.0) and 0.0.33 (torch==2.9.0), both sm_80 … sm_120; no CUDA runtime named
//     (the CUDA runtime comes with torch), as infer_cuda() would find.
//   flashinfer-python 0.2.0: x86_64 only.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "smcompat/index/record.hpp"

namespace smcompat::test_index {

/// One member holding one fatbin whose images are `images` ("sm_90", "compute_90@8.4").
inline IndexedFile device_file(const std::string& path, const std::vector<std::string>& images) {
  IndexedFile f;
  f.path = path;
  f.size = 4096;
  UnitSignature unit;
  for (const auto& text : images) {
    auto image = IndexedImage::parse(text);
    if (image) unit.images.push_back(*image);
  }
  std::sort(unit.images.begin(), unit.images.end());
  f.images = unit.images.size();
  f.units.push_back(unit);
  return f;
}

/// A wheel record with its summaries (sass, ptx, lto) derived from the files, as index_wheel()
/// derives them.
inline WheelRecord wheel(const std::string& package, const std::string& version,
                         const std::string& machine, std::vector<IndexedFile> files,
                         std::vector<std::string> requires_dist = {}, std::string cuda = {},
                         const std::string& python_tag = "cp312") {
  WheelRecord r;
  r.package = package;
  r.version = version;
  r.machine = machine;
  std::string dist = package;
  std::replace(dist.begin(), dist.end(), '-', '_');
  r.python_tag = machine == "any" ? "py3" : python_tag;
  r.abi_tag = machine == "any" ? "none" : python_tag;
  r.platform_tag = machine == "any" ? "any" : "manylinux_2_28_" + machine;
  r.filename =
      fmt::format("{}-{}-{}-{}-{}.whl", dist, version, r.python_tag, r.abi_tag, r.platform_tag);
  r.size = 1000000;
  // Distinct per file name: an index keeps one wheel per sha256 (normalize()).
  r.sha256 = fmt::format("{:064x}", std::hash<std::string>{}(r.filename));
  r.members = files.size() + 10;
  r.requires_dist = std::move(requires_dist);
  r.cuda = std::move(cuda);
  if (!r.cuda.empty()) r.cuda_evidence = "fixture";
  std::set<SmTarget> sass, lto;
  std::set<IndexedImage> ptx;
  for (const auto& f : files)
    for (const auto& u : f.units)
      for (const auto& i : u.images) {
        if (i.target.kind == ImageKind::kSass) sass.insert(i.target);
        if (i.target.kind == ImageKind::kPtx) ptx.insert(i);
        if (i.target.kind == ImageKind::kLto) lto.insert(i.target);
      }
  for (const auto& t : sass) r.sass.push_back(t.to_string());
  for (const auto& i : ptx) r.ptx.push_back(i.to_string());
  for (const auto& t : lto) r.lto.push_back(t.to_string());
  std::sort(files.begin(), files.end(),
            [](const IndexedFile& a, const IndexedFile& b) { return a.path < b.path; });
  r.files = std::move(files);
  return r;
}

inline std::vector<std::string> up_to_sm90() {
  return {"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90"};
}
inline std::vector<std::string> plus(std::vector<std::string> a,
                                     const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

inline WheelRecord bitsandbytes(const std::string& version, bool with_cuda128) {
  std::vector<IndexedFile> files;
  for (auto [cu, isa] : {std::pair{"118", "7.8"}, {"121", "8.1"}, {"124", "8.4"}, {"126", "8.5"}})
    files.push_back(device_file(fmt::format("bitsandbytes/libbitsandbytes_cuda{}.so", cu),
                                plus(up_to_sm90(), {fmt::format("compute_90@{}", isa)})));
  if (with_cuda128)
    files.push_back(device_file("bitsandbytes/libbitsandbytes_cuda128.so",
                                plus(up_to_sm90(), {"sm_100", "sm_120", "compute_120@8.7"})));
  return wheel("bitsandbytes", version, "x86_64", std::move(files));
}

inline WheelRecord torch(const std::string& version, const std::string& machine,
                         const std::string& triton) {
  bool blackwell = version != "2.6.0";
  auto images = blackwell ? plus(up_to_sm90(), {"sm_100", "sm_120", "compute_120@8.7"})
                          : plus(up_to_sm90(), {"compute_90@8.4"});
  std::vector<std::string> requires_dist = {
      fmt::format("triton=={}; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
                  triton),
      fmt::format("nvidia-cuda-runtime-cu12=={}; platform_system == \"Linux\"",
                  blackwell ? "12.8.90" : "12.4.127")};
  return wheel("torch", version, machine, {device_file("torch/lib/libtorch_cuda.so", images)},
               requires_dist, blackwell ? "12.8" : "12.4");
}

inline WheelRecord xformers(const std::string& version, const std::string& torch_pin) {
  auto images =
      version == "0.0.31"
          ? std::vector<std::string>{"sm_80", "sm_86", "sm_90", "compute_90@8.4"}
          : std::vector<std::string>{"sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"};
  return wheel("xformers", version, "x86_64", {device_file("xformers/_C.so", images)},
               {"torch==" + torch_pin}, "", "cp39");
}

/// The index most tests use.
inline WheelIndex sample_index() {
  WheelIndex index;
  index.built = "2026-11-25";
  index.tool_version = "0.1.0";
  index.rebuild = "scripts/refresh-wheel-index.sh";
  index.platforms = {"linux_x86_64", "linux_aarch64"};
  index.wheels = {
      bitsandbytes("0.45.1", false),
      bitsandbytes("0.45.2", false),
      bitsandbytes("0.45.3", true),
      torch("2.6.0", "x86_64", "3.2.0"),
      torch("2.8.0", "x86_64", "3.4.0"),
      torch("2.9.0", "x86_64", "3.5.0"),
      torch("2.9.0", "aarch64", "3.5.0"),
      wheel("triton", "3.4.0", "x86_64", {}),
      wheel("triton", "3.5.0", "x86_64", {}),
      xformers("0.0.31", "2.7.1"),
      xformers("0.0.32.post2", "2.8.0"),
      xformers("0.0.33", "2.9.0"),
      wheel("flashinfer-python", "0.2.0", "x86_64",
            {device_file("flashinfer/data/libflashinfer.so", {"sm_80", "sm_90", "sm_120"})}),
  };
  IndexFailure failure;
  failure.package = "flash-attn";
  failure.stage = "resolve";
  failure.message = "no binary wheels (sdist only)";
  index.failures.push_back(failure);
  return index;
}

}  // namespace smcompat::test_index
