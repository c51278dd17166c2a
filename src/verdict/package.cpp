// The package roll-up (include/smcompat/verdict/package.hpp): roles from data/
// package_libraries.json and the general rules, then one verdict from the libraries that load.
#include "smcompat/verdict/package.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "smcompat/util/embedded.hpp"
#include "smcompat/util/enum_names.hpp"
#include "smcompat/util/strings.hpp"

SMCOMPAT_EMBEDDED(package_libraries_json)

namespace smcompat {

namespace {

struct RoleRow {
  std::string package;  // normalised, or "*" for every package
  std::vector<std::string> alternatives, optional;
  std::string why, source;
};

const std::vector<RoleRow>& role_rows() {
  static const std::vector<RoleRow> rows = [] {
    std::vector<RoleRow> out;
    std::string_view text =
        embedded_text(embedded::package_libraries_json, embedded::package_libraries_json_size);
    // Read by the test suite (PackageRoll.OptionalLibraryDoesNotDecide); a file that does not parse
    // leaves only the general rules.
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("rows")) return out;
    for (const auto& r : j["rows"]) {
      RoleRow row;
      row.package = r.value("package", "");
      if (row.package != "*") row.package = normalize_package_name(row.package);
      row.alternatives = r.value("alternatives", std::vector<std::string>{});
      row.optional = r.value("optional", std::vector<std::string>{});
      row.why = r.value("why", "");
      row.source = r.value("source", "");
      out.push_back(std::move(row));
    }
    return out;
  }();
  return rows;
}

// A pattern matches the whole path or its end after a '/' (paths on disk are absolute).
bool path_matches(const std::string& pattern, const std::string& path) {
  if (fnmatch(pattern.c_str(), path.c_str(), 0) == 0) return true;
  std::string anywhere = "*/" + pattern;
  return fnmatch(anywhere.c_str(), path.c_str(), 0) == 0;
}

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// "sm90", "sm_100a", "sm120f" as a token of its own (not inside a longer word).
std::string arch_token_key(const std::string& path) {
  std::string out;
  bool found = false;
  size_t i = 0;
  while (i < path.size()) {
    bool starts = path.compare(i, 2, "sm") == 0 && (i == 0 || !is_alnum(path[i - 1]));
    if (starts) {
      size_t j = i + 2;
      if (j < path.size() && path[j] == '_') ++j;
      size_t digits = j;
      while (j < path.size() && std::isdigit(static_cast<unsigned char>(path[j]))) ++j;
      size_t n = j - digits;
      if (j < path.size() && (path[j] == 'a' || path[j] == 'f')) ++j;
      if (n >= 2 && n <= 3 && (j == path.size() || !is_alnum(path[j]))) {
        out += "sm*";
        found = true;
        i = j;
        continue;
      }
    }
    out += path[i++];
  }
  return found ? out : "";
}

// "libbitsandbytes_cuda126.so" -> "libbitsandbytes_cuda*.so": one library per CUDA runtime.
std::string runtime_variant_key(const std::string& path) {
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  for (std::string_view marker : {"_cuda", "_cu", "-cuda", "-cu"}) {
    auto at = base.find(marker);
    if (at == std::string::npos) continue;
    size_t i = at + marker.size(), j = i;
    while (j < base.size() && std::isdigit(static_cast<unsigned char>(base[j]))) ++j;
    if (j - i >= 2 && j - i <= 4) return dir + base.substr(0, i) + "*" + base.substr(j);
  }
  return {};
}

}  // namespace

const char* to_string(LibraryRole role) {
  static constexpr std::array<const char*, 3> kNames = {"core", "alternative", "optional"};
  return enum_name(role, kNames);
}

std::string alternative_key(const std::string& path) {
  std::string key = runtime_variant_key(path);
  return key.empty() ? arch_token_key(path) : key;
}

bool only_for_other_gpus(const FileVerdict& fv) {
  if (fv.verdict != Fit::kNoImage) return false;
  size_t loadable = 0, bare = 0;
  for (const auto& u : fv.units) {
    if (!u.loadable || u.no_code) continue;
    loadable++;
    bare += u.bare;
  }
  return loadable > 0 && (fv.specialized_elsewhere == loadable || bare == loadable);
}

PackageFit judge_package(const std::vector<PackageLibrary>& libraries, const PackageQuery& query,
                         const Target& target, const Catalog& catalog) {
  PackageFit out;
  const std::string package = normalize_package_name(query.package);
  std::vector<const RoleRow*> rows;
  for (const auto& r : role_rows())
    if (r.package == "*" || r.package == package) rows.push_back(&r);

  // Roles.
  for (const auto& lib : libraries) {
    if (!lib.verdict.has_device_code) continue;
    JudgedLibrary j;
    j.path = lib.path;
    j.fit = lib.verdict.verdict;
    j.code_fit = j.fit == Fit::kDriverTooOld ? lib.verdict.code_verdict : j.fit;
    j.summary = lib.verdict.summary;
    j.other_gpus = only_for_other_gpus(lib.verdict);
    const FileVerdict& fv = lib.verdict;
    j.link_input = fv.prelink_units > 0 && fv.units.size() == fv.prelink_units + fv.no_code_units &&
                   !fv.jit_link_used;
    if (j.link_input) j.why = "relocatable device code for nvcc -rdc builds; never loaded";
    j.jit_units = lib.verdict.unit_counts[static_cast<size_t>(Fit::kPtxJit)];
    for (const RoleRow* r : rows) {
      for (const auto& p : r->optional)
        if (j.group.empty() && j.role == LibraryRole::kCore && path_matches(p, lib.path)) {
          j.role = LibraryRole::kOptional;
          j.why = r->why + " [" + r->source + "]";
        }
      for (const auto& p : r->alternatives)
        if (j.role == LibraryRole::kCore && path_matches(p, lib.path)) {
          j.role = LibraryRole::kAlternative;
          j.group = join(r->alternatives, " | ");
          j.why = r->why + " [" + r->source + "]";
        }
    }
    if (j.role == LibraryRole::kCore && !j.link_input)
      j.group = alternative_key(lib.path);  // a role only if another library shares the key
    out.libraries.push_back(std::move(j));
  }
  out.has_device_code = std::any_of(out.libraries.begin(), out.libraries.end(),
                                    [](const JudgedLibrary& l) { return !l.link_input; });
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < out.libraries.size(); ++i)
    if (!out.libraries[i].group.empty()) groups[out.libraries[i].group].push_back(i);
  for (auto& [key, members] : groups) {
    auto& first = out.libraries[members.front()];
    if (members.size() < 2 && first.role == LibraryRole::kCore) {
      first.group.clear();  // a name that looks like a variant, with no sibling: core
      continue;
    }
    for (size_t i : members) {
      auto& l = out.libraries[i];
      l.role = LibraryRole::kAlternative;
      l.runtime_variant = !runtime_variant_key(l.path).empty();
      if (l.why.empty())
        l.why = l.runtime_variant
                    ? "one of the per-CUDA-runtime builds " + key + "; the package loads one"
                    : "one of the per-architecture builds " + key + "; the package loads one";
    }
  }

  // Which libraries decide: every core library that is not code for other GPUs only, and per
  // alternative set the member that loads (given by the caller) or the best one.
  for (auto& l : out.libraries)
    if (l.role == LibraryRole::kCore && !l.other_gpus && !l.link_input) l.decides = true;
  for (auto& [key, members] : groups) {
    if (out.libraries[members.front()].role != LibraryRole::kAlternative) continue;
    std::optional<size_t> pick;
    for (size_t i : members)
      if (!query.loaded.empty() && out.libraries[i].path == query.loaded) pick = i;
    if (!pick) {
      for (size_t i : members) {
        const auto& l = out.libraries[i];
        if (!pick) {
          pick = i;
          continue;
        }
        const auto& b = out.libraries[*pick];
        // Best fit; among equals the newest build (the highest name sorts last).
        if (better(l.fit, b.fit) || (l.fit == b.fit && l.path > b.path)) pick = i;
      }
    }
    out.libraries[*pick].decides = true;
  }
  bool any_deciding = std::any_of(out.libraries.begin(), out.libraries.end(),
                                  [](const JudgedLibrary& l) { return l.decides; });
  if (!any_deciding) {
    // Only optional libraries, or only code for other GPUs: those are all there is to load.
    for (auto& l : out.libraries)
      if (l.role == LibraryRole::kOptional && !l.link_input) l.decides = true;
  }

  // The verdict, first of the code (as if the driver were new enough), then the driver's say.
  std::vector<const JudgedLibrary*> deciding;
  for (const auto& l : out.libraries)
    if (l.decides) deciding.push_back(&l);
  auto any = [&](Fit f) {
    return std::any_of(deciding.begin(), deciding.end(),
                       [&](const JudgedLibrary* l) { return l->code_fit == f; });
  };
  if (!out.has_device_code || deciding.empty() || any(Fit::kNoImage)) {
    out.code_fit = Fit::kNoImage;
  } else if (any(Fit::kUnsupportedPtx)) {
    out.code_fit = Fit::kUnsupportedPtx;
  } else {
    std::optional<Fit> sass;
    for (const auto* l : deciding)
      if (runs_natively(l->code_fit)) sass = sass ? worse(*sass, l->code_fit) : l->code_fit;
    out.code_fit = sass.value_or(Fit::kPtxJit);
  }
  out.fit = out.code_fit;
  for (const auto* l : deciding) {
    if (!l->jit_units) continue;
    out.jit_units += l->jit_units;
    out.jit_libraries.push_back(l->path);
  }
  if (out.fit != Fit::kNoImage) {
    if (auto gpu = driver_cannot_run_gpu(target, catalog)) {
      out.driver_reason = *gpu;
      out.fit = Fit::kDriverTooOld;
    } else if (query.runtime && target.driver_cuda &&
               query.runtime->cuda.major > target.driver_cuda->major) {
      // The CUDA runtime the package links must be one the driver serves: a newer major cannot
      // initialise (compatibility-rules.md 9: minor-version compatibility stays within a major).
      out.driver_reason = fmt::format(
          "it needs the CUDA {} runtime ({}), and the driver supports CUDA {}: install {}",
          query.runtime->cuda.to_string(), query.runtime->evidence, target.driver_cuda->to_string(),
          driver_words(Version{query.runtime->cuda.major, 0}, catalog));
      out.fit = Fit::kDriverTooOld;
    }
  }

  // What does not decide and cannot run.
  for (const auto& l : out.libraries) {
    if (l.decides || l.link_input || runs_natively(l.fit) || l.fit == Fit::kPtxJit) continue;
    std::string why = l.other_gpus ? "code only for other GPUs"
                      : l.role == LibraryRole::kOptional
                          ? "optional: " + l.why
                          : "an alternative the package does not load here";
    out.not_running.push_back(fmt::format("{} ({}): {}", l.path, why, to_string(l.fit)));
  }

  // Words.
  auto route_of = [&](Fit fit) {
    if (runs_natively(fit) && out.jit_units)
      return fmt::format("{}; {} units in {} JIT", to_string(fit), out.jit_units,
                         out.jit_libraries.size() == 1
                             ? out.jit_libraries.front()
                             : fmt::format("{} libraries", out.jit_libraries.size()));
    return fit == Fit::kPtxJit ? std::string("JIT only") : std::string(to_string(fit));
  };
  if (!out.has_device_code)
    out.route = out.libraries.empty() ? "no device code"
                                      : "link inputs only (relocatable -rdc code, never loaded)";
  else if (out.fit == Fit::kDriverTooOld)
    out.route = "driver-too-old (by its code: " + route_of(out.code_fit) + ")";
  else
    out.route = route_of(out.fit);
  out.summary = out.route;
  if (!out.driver_reason.empty()) out.summary += ": " + out.driver_reason;
  if (!out.not_running.empty())
    out.summary += fmt::format("; {} librar{} not loaded here cannot run", out.not_running.size(),
                               out.not_running.size() == 1 ? "y" : "ies");
  return out;
}

}  // namespace smcompat
