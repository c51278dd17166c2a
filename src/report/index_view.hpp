// What the index printers (text, Markdown, JSON; src/report/index_*.cpp) share: the header facts
// (target, machine, index), the wording of a package's native run, and lookups of a release in
// an advice. Strings come back raw (package names and notes come from the index, which is
// untrusted input); each printer escapes them for its own medium.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "smcompat/report/index_report.hpp"

namespace smcompat::index_view {

/// Label and value of each header fact, in print order: target, driver, wheels for, index,
/// environment.
std::vector<std::pair<std::string, std::string>> header_facts(const IndexAnswerContext& context);
/// The "index" fact alone: "built-in, built 2026-11-27, 435 wheels".
std::string index_fact(const IndexAnswerContext& context);

/// The release of `a` with version `version`, if indexed.
const ReleaseFit* find_release(const PackageAdvice& a, const std::string& version);
/// The recommended release's fit, if there is one.
const ReleaseFit* recommended_release(const PackageAdvice& a);

/// Compact "runs natively" cell: "since 0.45.3", "since ≤ 0.43.0", "0.44.0–0.45.0 only",
/// "JIT only", "none", "no GPU code", "not indexed".
std::string native_cell(const PackageAdvice& a);
/// The same as a sentence: "runs natively since 0.45.3 (newest 0.45.5)", "runs natively at or
/// before 0.43.0 (the index starts there) up to 0.45.5", ...; "" when not indexed.
std::string native_sentence(const PackageAdvice& a);

/// The JIT-only releases as ranges of consecutive indexed releases, newest first: "0.45.2",
/// "2.6.0–2.7.1, 2.3.0"; "" when there are none.
std::string jit_ranges(const PackageAdvice& a);

/// The verdict as a word ("native", ..., "no device code" when the wheel carries none).
std::string fit_word(const WheelVerdict& v);

/// Whether any package of the answer was asked for but has no native release, or is unknown.
bool any_without_native(const std::vector<PackageAdvice>& advice);

/// The CUDA runtime cell: "12.8"; a list of runtime variants ("11.8;12.1;12.4") as
/// "11.8–12.4 (3 variants)"; "" stays "".
std::string cuda_cell(const std::string& cuda);

/// "sm_100 sm_120", "–" when empty.
std::string join(const std::vector<std::string>& items, const char* empty = "–");

}  // namespace smcompat::index_view
