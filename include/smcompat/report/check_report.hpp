// Rendering of a live-process check (doctor/process_check.hpp): aligned text for people (the
// process, its GPU, one row per loaded library with device code, then the doctor's findings) and
// JSON for programs (schema "smcompat.check/1", documented in docs/json-schema.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "smcompat/doctor/process_check.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kCheckSchema = "smcompat.check/1";

std::string render_check_text(const doctor::ProcessCheck& check, const Style& style);
nlohmann::json check_to_json(const doctor::ProcessCheck& check,
                             const std::vector<std::string>& argv);

}  // namespace smcompat
