// JSON of a live-process check, schema "smcompat.check/1" (docs/json-schema.md): the envelope of
// json_document.hpp around the process, its GPU (scan's target object), the driver, the loaded
// libraries with device code, torch's run-time answers and the doctor's findings.
#include "smcompat/report/check_report.hpp"
#include "smcompat/report/doctor_report.hpp"
#include "smcompat/report/json_document.hpp"
#include "smcompat/report/scan_report.hpp"

namespace smcompat {

using namespace doctor;
using nlohmann::json;

json check_to_json(const ProcessCheck& c, const std::vector<std::string>& argv) {
  const DoctorReport& r = c.report;
  json driver = driver_facts_to_json(r.driver);
  json what_if = json::array();
  for (auto& t : r.targets)
    if (!t.observed) what_if.push_back(target_to_json(t));
  json libraries = json::array();
  for (auto& l : c.libraries) {
    json targets = json::array();
    for (auto& t : l.code.targets) targets.push_back(t.to_string());
    libraries.push_back(
        {{"path", l.path},
         {"deleted", l.deleted},
         {"package", l.package.empty() ? json() : json(l.package)},
         {"version", l.version.empty() ? json() : json(l.version)},
         {"fit", l.verdict ? json(to_string(l.verdict->fit)) : json()},
         {"best_image",
          l.verdict && !l.verdict->best_image.empty() ? json(l.verdict->best_image) : json()},
         {"no_kernels", l.code.no_kernels},
         {"targets", targets}});
  }
  json torch;
  if (c.torch) {
    auto& t = *c.torch;
    torch = {{"version", t.version},
             {"cuda", t.cuda.empty() ? json() : json(t.cuda)},
             {"arch_list", t.arch_list},
             {"capability", t.capability ? json(t.capability->to_string()) : json()},
             {"device", t.device},
             {"device_name", t.device_name}};
  }
  json findings = json::array();
  for (auto& f : r.findings) findings.push_back(finding_to_json(f));
  json errors = c.errors;
  for (auto& e : r.errors) errors.push_back(e);
  return node_json_document(kCheckSchema, argv,
                            {{"pid", c.pid},
                             {"maps", c.maps},
                             {"maps_read", c.maps_read},
                             {"mapped_files", c.mapped_files},
                             {"gpu", c.gpu ? target_to_json(r.targets[*c.gpu]) : json()},
                             {"what_if", what_if},
                             {"driver", driver},
                             {"libraries", libraries},
                             {"torch", torch},
                             {"summary",
                              {{"errors", r.count(Severity::kError)},
                               {"warnings", r.count(Severity::kWarning)},
                               {"info", r.count(Severity::kInfo)}}},
                             {"findings", findings},
                             {"errors", errors}});
}

}  // namespace smcompat
