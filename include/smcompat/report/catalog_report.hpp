// Rendering of the catalog for `smcompat gpus` and `smcompat arch`: aligned text for people,
// versioned JSON for programs. JSON schemas: docs/json-schema.md ("smcompat.gpus/1",
// "smcompat.arch/1").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kGpusSchema = "smcompat.gpus/1";
inline constexpr const char* kArchSchema = "smcompat.arch/1";

/// One GPU: name, aliases, cc, SMs, clocks, memory, peak TFLOPS, tags, source (null if unknown).
nlohmann::json gpu_json(const GpuSpec& gpu);
/// One architecture: resources, features by variant, CUDA and PTX ISA range, tags, source.
nlohmann::json arch_json(const ArchInfo& arch);

/// `smcompat gpus --json`: {schema, gpus: [...]}.
nlohmann::json gpus_json(const std::vector<const GpuSpec*>& gpus);
/// `smcompat arch --json`: {schema, archs: [...]} for every architecture of `catalog`.
nlohmann::json archs_json(const Catalog& catalog);
/// `smcompat arch SM --json`: {schema, arch: {...}}.
nlohmann::json arch_detail_json(const ArchInfo& arch);

/// The GPU table (dense peak TFLOPS) and its legend.
std::string render_gpus_text(const std::vector<const GpuSpec*>& gpus, const Style& style);
/// One line per architecture of `catalog`, and a hint.
std::string render_archs_text(const Catalog& catalog, const Style& style);
/// One architecture in full, with the catalogued images that run on it (the compatibility rules
/// of verdict/fit.hpp applied to every target) and the GPUs that have it.
std::string render_arch_text(const Catalog& catalog, const ArchInfo& arch, const Style& style);

}  // namespace smcompat
