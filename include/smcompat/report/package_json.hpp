// The JSON of a package roll-up (verdict/package.hpp), one writer for scan, index and doctor
// documents (docs/json-schema.md, "rollup").
#pragma once

#include <nlohmann/json.hpp>

#include "smcompat/verdict/package.hpp"

namespace smcompat {

nlohmann::json package_fit_json(const PackageFit& fit);

}  // namespace smcompat
