// smcompat._native: the library (include/smcompat/api/api.hpp) for Python. Each function returns
// the JSON text of the document the CLI prints with `--json`; python/smcompat/ turns it into typed
// objects. The work runs with the GIL released, so other Python threads go on during a scan.
// Errors raise smcompat._native.Failure(what, file, offset), which the Python layer re-raises as
// smcompat.SmcompatError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/api/api.hpp"
#include "smcompat/report/check_report.hpp"
#include "smcompat/util/table.hpp"
#include "smcompat/util/json_text.hpp"

namespace nb = nanobind;
using smcompat::Error;
using smcompat::Result;
using Strings = std::vector<std::string>;

namespace {

// The C++ side of Failure; never thrown across the boundary itself (raise_failure sets the
// Python error with the three fields instead).
struct FailureMarker : std::exception {};
nb::object failure_type;

[[noreturn]] void raise_failure(const Error& e) {
  nb::object file = e.file.empty() ? nb::none() : nb::cast(e.file);
  nb::object offset = e.offset ? nb::cast(*e.offset) : nb::none();
  nb::tuple args = nb::make_tuple(e.what, file, offset);
  PyErr_SetObject(failure_type.ptr(), args.ptr());
  throw nb::python_error();
}

// Runs `work` without the GIL and returns its text, or raises Failure.
std::string text_of(const std::function<Result<std::string>()>& work) {
  std::optional<Error> error;
  std::string text;
  {
    nb::gil_scoped_release release;
    auto result = work();
    if (result)
      text = std::move(*result);
    else
      error = result.error();
  }
  if (error) raise_failure(*error);
  return text;
}

// Compact JSON text; invalid UTF-8 in file names or members becomes U+FFFD (util/json_text.hpp).
std::string compact(const nlohmann::json& j) { return smcompat::json_text(j, -1); }

// Runs `work` without the GIL and returns its document as compact JSON text.
std::string document(const std::function<Result<nlohmann::json>()>& work) {
  return text_of([&]() -> Result<std::string> {
    auto result = work();
    if (!result) return result.error();
    return compact(*result);
  });
}

}  // namespace

NB_MODULE(_native, m) {
  m.doc() = "smcompat's library; use the smcompat package, not this module";
  failure_type = nb::steal(PyErr_NewExceptionWithDoc(
      "smcompat._native.Failure", "args: (what, file or None, offset or None)", PyExc_Exception,
      nullptr));
  m.attr("Failure") = failure_type;

  m.def("version", [] { return std::string(SMCOMPAT_VERSION); });

  m.def(
      "scan",
      [](Strings paths, std::string gpu, std::string target, std::string driver, bool deep,
         bool verbose, bool probe, unsigned jobs, bool strict) {
        smcompat::api::ScanRequest r{std::move(paths), std::move(gpu), std::move(target),
                                     std::move(driver), deep, verbose, probe, jobs, strict};
        return document([&] { return smcompat::api::scan(r); });
      },
      nb::arg("paths"), nb::arg("gpu"), nb::arg("target"), nb::arg("driver"), nb::arg("deep"),
      nb::arg("verbose"), nb::arg("probe"), nb::arg("jobs"), nb::arg("strict"));

  m.def(
      "doctor",
      [](Strings gpus, Strings pythons, bool discover_active, bool scan_code) {
        smcompat::api::DoctorRequest r{std::move(gpus), std::move(pythons), discover_active,
                                       scan_code};
        return document([&] { return smcompat::api::doctor(r); });
      },
      nb::arg("gpus"), nb::arg("pythons"), nb::arg("discover_active"), nb::arg("scan_code"));

  m.def(
      "explain",
      [](std::string text, bool run_doctor, Strings gpus, Strings pythons, bool discover_active) {
        smcompat::api::ExplainRequest r{std::move(text), run_doctor, std::move(gpus),
                                        std::move(pythons), discover_active};
        return document([&] { return smcompat::api::explain(r); });
      },
      nb::arg("text"), nb::arg("doctor"), nb::arg("gpus"), nb::arg("pythons"),
      nb::arg("discover_active"));

  m.def(
      "gpus", [](std::string query) { return document([&] { return smcompat::api::gpus(query); }); },
      nb::arg("query"));

  m.def(
      "probe",
      [](bool use_nvml) { return document([&] { return smcompat::api::probe(use_nvml); }); },
      nb::arg("use_nvml"));

  // check: the smcompat.check/1 document and, with `text`, also the report for people (one
  // check serves both, so `python -m smcompat check` prints the text and exits by the findings).
  m.def(
      "check",
      [](int pid, Strings gpus, std::string torch, bool text) {
        smcompat::api::CheckRequest r;
        r.pid = pid;
        r.gpus = std::move(gpus);
        std::string rendered;
        std::string document = text_of([&]() -> Result<std::string> {
          if (!torch.empty()) {
            auto t = smcompat::api::torch_runtime_from_json(torch);
            if (!t) return t.error();
            r.torch = std::move(*t);
          }
          auto c = smcompat::api::check(r);
          if (!c) return c.error();
          if (text) rendered = smcompat::render_check_text(*c, smcompat::Style::for_stream(stdout));
          return compact(smcompat::check_to_json(*c, smcompat::api::check_argv(r)));
        });
        return std::make_pair(std::move(document), std::move(rendered));
      },
      nb::arg("pid"), nb::arg("gpus"), nb::arg("torch"), nb::arg("text"));
}
