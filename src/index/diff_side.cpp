// `index diff`'s sides and the index a command reads (include/smcompat/index/advise.hpp).
#include <fmt/format.h>

#include <filesystem>

#include "smcompat/index/advise.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {

Result<std::shared_ptr<const WheelIndex>> load_wheel_index(const std::string& path) {
  if (path.empty())  // the built-in index lives as long as the process: a non-owning pointer
    return std::shared_ptr<const WheelIndex>(&builtin_wheel_index(), [](const WheelIndex*) {});
  SMCOMPAT_TRY(WheelIndex read, read_wheel_index(path));
  return std::shared_ptr<const WheelIndex>(std::make_shared<WheelIndex>(std::move(read)));
}

Result<DiffSide> read_diff_side(const std::string& arg, const std::string& index_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(arg, ec)) {
    if (ends_with(to_lower(arg), ".whl")) {
      auto record = index_wheel(arg);
      if (!record) return record.error();
      if (!record->errors.empty())
        return make_error(fmt::format("cannot read the wheel: {}", record->errors.front()))
            .in_file(arg);
      return DiffSide{{std::move(*record)}, true, false};
    }
    auto index = read_wheel_index(arg);
    if (!index) return index.error();
    return DiffSide{std::move(index->wheels), false, false};
  }
  auto eq = arg.find("==");
  if (eq == std::string::npos || eq == 0 || eq + 2 >= arg.size())
    return make_error(fmt::format(
        "'{}' is neither a wheel file, an index file nor PKG==VERSION (no such file)", arg));
  std::string package = normalize_package_name(trim(std::string_view(arg).substr(0, eq)));
  std::string version(trim(std::string_view(arg).substr(eq + 2)));
  auto index = load_wheel_index(index_path);
  if (!index) return index.error();
  std::vector<WheelRecord> out;
  for (const auto& w : (*index)->wheels)
    if (w.package == package && compare_versions(w.version, version) == 0) out.push_back(w);
  if (out.empty())
    return make_error(
        fmt::format("{} {} is not in the {} index{}", package, version,
                    index_path.empty() ? "built-in" : index_path,
                    (*index)->built.empty() ? "" : " (built " + (*index)->built + ")"));
  return DiffSide{std::move(out), false, true};
}

void narrow_to_wheel_machine(DiffSide& lookup, const DiffSide& wheel) {
  if (!lookup.lookup || !wheel.wheel_file) return;
  std::vector<WheelRecord> same;
  for (const auto& r : lookup.records)
    if (r.machine == wheel.records.front().machine) same.push_back(r);
  if (!same.empty()) lookup.records = std::move(same);
}

}  // namespace smcompat
