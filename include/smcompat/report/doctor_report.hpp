// Rendering of doctor reports (doctor/doctor.hpp): aligned text for people (colour on a TTY),
// JSON for programs (schema "smcompat.doctor/1", documented in docs/doctor.md), Markdown, and the
// reviewable fix script.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "smcompat/doctor/doctor.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kDoctorSchema = "smcompat.doctor/1";

std::string render_doctor_text(const doctor::DoctorReport& report, const Style& style);
nlohmann::json doctor_to_json(const doctor::DoctorReport& report,
                              const std::vector<std::string>& argv);
std::string render_doctor_markdown(const doctor::DoctorReport& report);
/// A reviewable shell script with every finding's fix commands; it is never run by smcompat.
std::string render_fix_script(const doctor::DoctorReport& report);

/// The "Findings" section as the doctor prints it: a count line, then each finding with its
/// evidence, fix and commands (errors first, as the report holds them).
std::string render_findings_text(const doctor::DoctorReport& report, const Style& style);
std::string render_findings_text(const std::vector<doctor::Finding>& findings, const Style& style);
/// "## Findings (N errors, ...)" and one "### severity: title" section per finding.
std::string render_findings_markdown(const std::vector<doctor::Finding>& findings);

/// One finding: id, severity, title, evidence, fix, fix_commands, subject.
nlohmann::json finding_to_json(const doctor::Finding& finding);
/// The `driver` object of the doctor and check documents.
nlohmann::json driver_facts_to_json(const doctor::DriverFacts& driver);

/// "ok, driver 570.124.06, CUDA 12.8, open kernel module (observed)".
std::string driver_line(const doctor::DriverFacts& driver);

}  // namespace smcompat
