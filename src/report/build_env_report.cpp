// Rendering of build settings (include/smcompat/report/build_env_report.hpp).
#include "smcompat/report/build_env_report.hpp"

#include <fmt/format.h>

#include "smcompat/report/json_document.hpp"

namespace smcompat {

using doctor::BuildEnv;
using doctor::BuildEnvRequest;
using doctor::BuildFor;

std::string build_env_shell(const BuildEnv& env, bool with_reasons) {
  std::string out;
  for (auto& l : env.lines) {
    out += fmt::format("export {}=\"{}\"", l.name, l.value);
    if (with_reasons && !l.reason.empty()) out += "  # " + l.reason;
    out += '\n';
  }
  return out;
}

std::string render_build_env_text(const BuildEnv& be, const BuildEnvRequest& req,
                                  const std::vector<std::string>& gpu_names, const Style& st) {
  const bool pytorch = req.what == BuildFor::kPytorch;
  std::string gpus;
  for (auto& g : gpu_names) gpus += (gpus.empty() ? "" : ", ") + g;
  std::string out =
      st.bold(fmt::format("# Build settings for {} ({})",
                          pytorch ? "PyTorch from source" : "CUDA extensions", gpus)) +
      "\n";
  out += build_env_shell(be, true);
  if (req.host.cxx.empty())
    out += "# host compiler: none found on PATH\n";
  else
    out += fmt::format("# host compiler: {}{}\n", req.host.cxx,
                       req.host.cxx_version.empty() ? "" : " (" + req.host.cxx_version + ")");
  for (auto& p : be.problems) out += fmt::format("{} {}\n", st.yellow("# problem:"), p);
  out += pytorch
             ? "# then, in the PyTorch checkout: python setup.py develop (or pip install -e . -v "
               "--no-build-isolation)\n"
             : "# then, in the extension's source directory: pip install --no-build-isolation "
               ".\n";
  return out;
}

nlohmann::json build_env_to_json(const BuildEnv& env, const BuildEnvRequest& req,
                                 const std::vector<std::string>& argv) {
  using nlohmann::json;
  json lines = json::array();
  for (auto& l : env.lines)
    lines.push_back({{"name", l.name}, {"value", l.value}, {"reason", l.reason}});
  json gpus = json::array();
  for (auto cc : req.gpus) gpus.push_back(cc.to_string());
  auto or_null = [](const std::string& s) { return s.empty() ? json() : json(s); };
  return json_document(kBuildEnvSchema, argv,
                       {{"for", req.what == BuildFor::kPytorch ? "pytorch" : "extension"},
                        {"gpus", gpus},
                        {"torch_cuda_arch_list", env.arch_list},
                        {"min_nvcc", env.min_nvcc ? json(env.min_nvcc->to_string()) : json()},
                        {"toolkit", or_null(req.toolkits.empty() ? "" : req.toolkits.front().root)},
                        {"host_compiler", or_null(req.host.cxx)},
                        {"lines", lines},
                        {"problems", env.problems}});
}

}  // namespace smcompat
