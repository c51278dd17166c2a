// Reading and analysing the trace shim's records (printing: src/report/trace_report.cpp).
// Classification follows
// ../shared/reference/driver-api.md section 5.2 (BINARY_VERSION equal to an offered SASS arch:
// that SASS ran; equal to the device's arch with no such SASS: PTX was JIT-compiled); the
// prediction is verdict/'s (the working model of compatibility-rules.md section 7), the same one
// `smcompat scan` makes for these images.
// Observed facts and predictions are kept apart and labelled in the output.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "smcompat/binary/inventory.hpp"
#include "smcompat/trace/trace.hpp"
#include "smcompat/verdict/verdict.hpp"

namespace smcompat::trace {

using nlohmann::json;

namespace {

template <class T>
std::optional<T> opt(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::string str(const json& j, const char* key) { return opt<std::string>(j, key).value_or(""); }

std::vector<OfferedImage> parse_images(const json& j) {
  std::vector<OfferedImage> out;
  auto it = j.find("images");
  if (it == j.end() || !it->is_array()) return out;
  for (const json& img : *it) {
    if (!img.is_object()) continue;
    auto target = SmTarget::parse(str(img, "target"));
    if (!target) continue;
    OfferedImage o{*target, std::nullopt};
    if (auto isa = opt<std::string>(img, "ptx_isa")) o.ptx_isa = Version::parse(*isa);
    out.push_back(o);
  }
  return out;
}

TracedFunction parse_function(const json& j) {
  TracedFunction f;
  f.name = str(j, "name");
  f.binary_version = opt<int>(j, "binary_version");
  f.ptx_version = opt<int>(j, "ptx_version");
  f.num_regs = opt<int>(j, "num_regs");
  f.get_ms = opt<double>(j, "ms");
  return f;
}

bool env_one(const json& env, const char* key) {
  auto v = opt<std::string>(env, key);
  return v && *v == "1";
}

}  // namespace

TraceLog parse_trace(std::string_view text, const std::string& name) {
  TraceLog log;
  std::map<std::pair<int, uint64_t>, size_t> by_id;  // (pid, id) -> index in loads
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      Error e =
          make_error(fmt::format("line {}: not a JSON object (a record cut short?)", line_no));
      e.file = name;
      log.warnings.push_back(std::move(e));
      continue;
    }
    std::string ev = str(j, "ev");
    int pid = opt<int>(j, "pid").value_or(0);
    if (ev == "start") {
      TracedProcess p;
      p.pid = pid;
      p.exe = str(j, "exe");
      p.report_cc = str(j, "report_cc");
      if (auto it = j.find("only_for"); it != j.end() && it->is_array())
        for (const json& s : *it)
          if (s.is_string()) p.only_for.push_back(s.get<std::string>());
      if (auto it = j.find("env"); it != j.end() && it->is_object()) {
        p.env.force_ptx_jit = env_one(*it, "CUDA_FORCE_PTX_JIT");
        p.env.disable_ptx_jit = env_one(*it, "CUDA_DISABLE_PTX_JIT");
        p.env.module_loading = str(*it, "CUDA_MODULE_LOADING");
      }
      log.processes.push_back(std::move(p));
    } else if (ev == "load") {
      TracedLoad l;
      l.id = opt<uint64_t>(j, "id").value_or(0);
      l.pid = pid;
      l.line = line_no;
      l.api = str(j, "api");
      l.kind = str(j, "kind");
      l.source = str(j, "source");
      l.path = str(j, "path");
      l.format = str(j, "format");
      l.result = opt<int>(j, "result").value_or(-1);
      l.error = str(j, "error");
      l.device = opt<int>(j, "device");
      if (auto cc = opt<std::string>(j, "device_cc")) l.device_cc = ComputeCapability::parse(*cc);
      if (auto it = j.find("devices_cc"); it != j.end() && it->is_array())
        for (const json& c : *it)
          if (auto cc =
                  c.is_string() ? ComputeCapability::parse(c.get<std::string>()) : std::nullopt)
            l.devices_cc.push_back(*cc);
      // A context-independent load on devices that are all alike is judged for that device.
      if (!l.device_cc && !l.devices_cc.empty() &&
          std::all_of(l.devices_cc.begin(), l.devices_cc.end(),
                      [&](const ComputeCapability& c) { return c == l.devices_cc.front(); }))
        l.device_cc = l.devices_cc.front();
      l.driver_cuda = opt<int>(j, "driver_cuda");
      l.load_ms = opt<double>(j, "load_ms").value_or(0);
      l.jit_wall_ms = opt<double>(j, "jit_wall_ms");
      l.jit_error_log = str(j, "jit_error_log");
      l.images = parse_images(j);
      l.inventory_error = str(j, "inventory_error");
      if (auto it = j.find("functions"); it != j.end() && it->is_array()) {
        l.functions_listed = true;
        for (const json& f : *it)
          if (f.is_object()) l.functions.push_back(parse_function(f));
      }
      by_id[{pid, l.id}] = log.loads.size();
      log.loads.push_back(std::move(l));
    } else if (ev == "get_function" || ev == "get_kernel") {
      auto id = opt<uint64_t>(j, "id");
      if (!id) continue;
      auto it = by_id.find({pid, *id});
      if (it == by_id.end()) continue;
      TracedLoad& l = log.loads[it->second];
      if (j.value("first_use", false)) l.first_use_ms = opt<double>(j, "ms");
      int result = opt<int>(j, "result").value_or(-1);
      if (result > 0 && !l.first_use_error && !l.got_function) {
        l.first_use_error = result;
        l.first_use_error_name = str(j, "error");
        l.first_use_api = str(j, "api");
      } else if (result == 0) {
        l.got_function = true;
        l.first_use_error.reset();  // a later lookup of another name found code: not a failure
      }
      if (ev == "get_function" && result == 0) {
        TracedFunction f = parse_function(j);
        auto same = std::find_if(l.functions.begin(), l.functions.end(),
                                 [&](const TracedFunction& g) { return g.name == f.name; });
        if (same == l.functions.end() || f.name.empty()) {
          l.functions.push_back(f);
        } else {
          if (!same->get_ms) same->get_ms = f.get_ms;
          if (!same->binary_version) same->binary_version = f.binary_version;
          if (!same->ptx_version) same->ptx_version = f.ptx_version;
        }
      }
    } else if (ev == "unload") {
      auto id = opt<uint64_t>(j, "id");
      if (!id) continue;
      if (auto it = by_id.find({pid, *id}); it != by_id.end())
        log.loads[it->second].unloaded = true;
    } else if (ev == "lookup") {
      TracedLookup k;
      k.via = str(j, "via");
      k.name = str(j, "name");
      k.version = opt<int>(j, "version");
      k.flags = opt<uint64_t>(j, "flags").value_or(0);
      k.wrapped = j.value("wrapped", false);
      k.found = j.value("found", false);
      k.pid = pid;
      log.lookups.push_back(std::move(k));
    } else if (ev == "cc_query") {
      CcQuery q;
      q.api = str(j, "api");
      q.caller = str(j, "caller");
      q.real_cc = str(j, "real_cc");
      q.reported_cc = str(j, "reported_cc");
      q.overridden = j.value("overridden", false);
      q.pid = pid;
      log.cc_queries.push_back(std::move(q));
    }
    // Other events (link_input, link_complete) are kept in the file for tools; the linked image
    // is traced again when it is loaded.
  }
  return log;
}

Result<TraceLog> read_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    Error e = make_error("cannot open the trace file");
    e.file = path;
    return e;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_trace(ss.str(), path);
}

Prediction predict(const std::vector<OfferedImage>& images, ComputeCapability cc,
                   std::optional<Version> driver_cuda, const JitEnv& env, const Catalog& catalog) {
  // The images of one load are alternatives for the same code: one unit for verdict/.
  // CUDA_FORCE_PTX_JIT hides the SASS from the driver; CUDA_DISABLE_PTX_JIT refuses the JIT
  // (compatibility-rules.md section 8).
  FileInventory inv;
  inv.format = FileFormat::kFatbin;
  for (const OfferedImage& img : images) {
    if (env.force_ptx_jit && img.target.kind == ImageKind::kSass) continue;
    DeviceImage d;
    d.target = img.target;
    d.ptx_version = img.ptx_isa;
    inv.images.push_back(std::move(d));
  }
  ContainerInfo unit;
  unit.image_count = inv.images.size();
  inv.containers.push_back(unit);
  Target target;
  target.cc = cc;
  target.driver_cuda = driver_cuda;
  target.label = cc.to_string();
  FileVerdict fv = judge_file(inv, target, catalog);
  Prediction p;
  if (fv.units.empty()) {
    p = {Fit::kFailed, std::nullopt, 209, "no image can run on " + cc.to_string()};
    return p;
  }
  const UnitVerdict& u = fv.units.front();
  p.reason = u.reason;
  if (u.chosen) p.image = inv.images[*u.chosen].target;
  // The unit verdict is the prediction, except that what cannot run becomes the failed load the
  // driver reports (CUresult 222 CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 209
  // CUDA_ERROR_NO_BINARY_FOR_GPU, 223 CUDA_ERROR_JIT_COMPILATION_DISABLED for a refused JIT).
  auto fail = [&](int error) {
    p.outcome = Fit::kFailed;
    p.image.reset();
    p.error = error;
  };
  switch (u.verdict) {
    case Fit::kNative:
    case Fit::kCompatibleSass:
      p.outcome = u.verdict;
      break;
    case Fit::kPtxJit:
      p.outcome = Fit::kPtxJit;
      if (env.disable_ptx_jit) {
        p = {Fit::kFailed, std::nullopt, 223, "only PTX fits, and CUDA_DISABLE_PTX_JIT=1"};
      }
      break;
    case Fit::kUnsupportedPtx:
      fail(222);
      break;
    case Fit::kDriverTooOld:  // a file or package verdict, never a unit's;
                              // CUDA_ERROR_INSUFFICIENT_DRIVER
      fail(35);
      break;
    case Fit::kNoImage:
    case Fit::kNotLoadable:
    case Fit::kFailed:
    case Fit::kUnknown:
      fail(209);
      break;
  }
  if (p.reason.empty()) p.reason = to_string(u.verdict);
  return p;
}

namespace {

// CUresults a lazily loaded library reports at its first kernel lookup when the driver finds no
// code for the device: NO_BINARY_FOR_GPU, INVALID_PTX, UNSUPPORTED_PTX_VERSION,
// JIT_COMPILATION_DISABLED.
bool is_image_error(int result) {
  return result == 209 || result == 218 || result == 222 || result == 223;
}

// Classifies one load from the driver's answers (observed).
void classify(TracedLoad& l, const JitEnv& env) {
  if (l.result < 0) {
    l.outcome = Fit::kUnknown;
    l.how = "the record carries no result";
    return;
  }
  if (l.result != 0) {
    l.outcome = Fit::kFailed;
    l.how = l.error.empty() ? fmt::format("error {}", l.result) : l.error;
    return;
  }
  std::optional<int> bv, pv;
  for (const TracedFunction& f : l.functions) {
    if (f.binary_version) {
      bv = f.binary_version;
      pv = f.ptx_version;
      break;
    }
  }
  // A library that loaded with no code for the device fails at its first kernel lookup: with an
  // image error, or with "not found" when the load listed no kernel at all.
  if (!bv && l.first_use_error &&
      (is_image_error(*l.first_use_error) || (l.functions_listed && l.functions.empty()))) {
    l.outcome = Fit::kFailed;
    l.how = fmt::format("{} at {} (the load itself succeeded: the driver reports it at first use)",
                        l.first_use_error_name.empty() ? fmt::format("error {}", *l.first_use_error)
                                                       : l.first_use_error_name,
                        l.first_use_api.empty() ? "the first lookup" : l.first_use_api);
    return;
  }
  if (!bv) {
    l.outcome = Fit::kUnknown;
    l.how = "the driver reported no function attributes";
    return;
  }
  int dev_arch = l.device_cc ? l.device_cc->arch() : -1;
  // SASS of the reported binary version offered? (`a`/`f` and base cubins of one arch share it.)
  // Under CUDA_FORCE_PTX_JIT=1 the driver ignores SASS: a binary version equal to an offered
  // cubin's is then the JIT's output (observed: sm_90 + compute_80 gives BINARY_VERSION 90,
  // PTX_VERSION 80, and a 13 ms load instead of 2 ms).
  const OfferedImage* sass = nullptr;
  for (const OfferedImage& img : l.images)
    if (!env.force_ptx_jit && img.target.kind == ImageKind::kSass && img.target.arch == *bv) {
      sass = &img;
      break;
    }
  if (sass) {
    l.chosen = sass->target;
    l.outcome = *bv == dev_arch ? Fit::kNative : Fit::kCompatibleSass;
    l.how = fmt::format("{} SASS{}", sass->target.to_string(),
                        l.device_cc ? " on " + l.device_cc->to_string() : "");
    return;
  }
  const OfferedImage* ptx = nullptr;
  for (const OfferedImage& img : l.images)
    if (img.target.kind == ImageKind::kPtx && pv && img.target.arch == *pv) ptx = &img;
  if (!ptx)
    for (const OfferedImage& img : l.images)
      if (img.target.kind == ImageKind::kPtx && img.target.arch <= std::max(dev_arch, 0) &&
          (!ptx || img.target.arch > ptx->target.arch))
        ptx = &img;
  if (ptx && *bv == dev_arch) {
    l.chosen = ptx->target;
    l.outcome = Fit::kPtxJit;
    l.how = fmt::format("JIT of {} to sm_{}", ptx->target.to_string(), *bv);
    return;
  }
  // Compiled for the device from PTX the container did not offer: the driver linked in code from
  // elsewhere (observed: the CUDA runtime hands an -rdc library's empty device-linked container to
  // cuLibraryLoadData and its pre-link compute_80 code comes back as sm_90 with PTX_VERSION 80).
  if (*bv == dev_arch && pv && *pv > 0 && *pv != *bv) {
    l.outcome = Fit::kPtxJit;
    l.from_outside = true;
    l.how = fmt::format(
        "JIT of compute_{} code to sm_{}: code the loaded container did not offer "
        "(linked in by the driver, e.g. -rdc pre-link code)",
        *pv, *bv);
    return;
  }
  l.outcome = Fit::kUnknown;
  l.how = fmt::format("binary version {} matches no offered image", *bv);
}

}  // namespace

void analyze(TraceLog& log, const Catalog& catalog) {
  for (TracedLoad& l : log.loads) {
    JitEnv env;
    for (const TracedProcess& p : log.processes)
      if (p.pid == l.pid) env = p.env;
    classify(l, env);
    // Nothing to predict from: no device, no images, or the code that ran came from outside the
    // container.
    if (!l.device_cc || l.images.empty() || l.from_outside) continue;
    std::optional<Version> driver;
    if (l.driver_cuda) driver = Version::from_cuda_int(*l.driver_cuda);
    l.predicted = predict(l.images, *l.device_cc, driver, env, catalog);
    const Prediction& p = *l.predicted;
    if (l.outcome == Fit::kUnknown) continue;  // nothing observed to compare
    if (p.outcome != l.outcome) {
      l.disagrees = true;
    } else if (p.outcome == Fit::kFailed) {
      // At first use the error names the lookup's failure, not the load's: outcome compared only.
      l.disagrees = !l.first_use_error && p.error != l.result;
    } else {
      l.disagrees = p.image && l.chosen && p.image->arch != l.chosen->arch;
    }
  }
}

TraceSummary summarize(const TraceLog& log) {
  TraceSummary s;
  s.loads = log.loads.size();
  for (const TracedLoad& l : log.loads) {
    ++s.loads_by_outcome[l.outcome];
    s.functions_by_outcome[l.outcome] += l.functions.size();
    if (l.disagrees) ++s.disagreements;
  }
  for (const CcQuery& q : log.cc_queries)
    if (q.overridden) ++s.overridden_queries;
  return s;
}

std::vector<std::string> override_implications(ComputeCapability fake, ComputeCapability real,
                                               const Catalog& catalog) {
  std::vector<std::string> out;
  if (fake == real) {
    out.push_back(fmt::format("{} is the device's real compute capability: nothing changes",
                              real.to_string()));
    return out;
  }
  out.push_back(
      fmt::format("the driver still selects code by the real compute capability {}: only what the "
                  "application believes changes",
                  real.to_string()));
  const ArchInfo* info = catalog.arch(fake.arch());
  std::vector<SmTarget> targets = {{ImageKind::kSass, fake.arch(), ArchVariant::kBase},
                                   {ImageKind::kPtx, fake.arch(), ArchVariant::kBase}};
  if (info && info->has_a) {
    targets.push_back({ImageKind::kSass, fake.arch(), ArchVariant::kArchSpecific});
    targets.push_back({ImageKind::kPtx, fake.arch(), ArchVariant::kArchSpecific});
  }
  if (info && info->has_f) targets.push_back({ImageKind::kSass, fake.arch(), ArchVariant::kFamily});
  for (const SmTarget& t : targets) {
    FitResult fit = fit_image(t, real, std::nullopt, std::nullopt, catalog);
    std::string what =
        t.kind == ImageKind::kSass ? t.to_string() + " SASS" : t.to_string() + " PTX";
    switch (fit.fit) {
      case Fit::kNative:
      case Fit::kCompatibleSass:
        out.push_back(fmt::format("{} runs on {}", what, real.to_string()));
        break;
      case Fit::kPtxJit:
        out.push_back(fmt::format("{} will be JIT-compiled for {} (slower first load)", what,
                                  real.to_string()));
        break;
      default:
        if (fit.reason.rfind(what + " cannot run", 0) == 0) {
          out.push_back(fit.reason);  // the catalog's sentence already says it
        } else {
          out.push_back(fmt::format("{} cannot run on {}: {}", what, real.to_string(), fit.reason));
        }
        break;
    }
  }
  out.push_back(
      fmt::format("code generators that trust the reported {} (Triton, torch.compile, NVRTC, nvcc "
                  "-arch=native) may emit sm_{} code the device cannot load",
                  fake.to_string(), fake.arch()));
  out.push_back(
      fmt::format("NVML (nvidia-smi) is left truthful and still reports {}", real.to_string()));
  return out;
}

std::vector<std::string> override_implications_for_files(const std::vector<std::string>& paths,
                                                         ComputeCapability fake,
                                                         ComputeCapability real,
                                                         std::optional<Version> driver_cuda,
                                                         const Catalog& catalog) {
  std::vector<std::string> out;
  Target target;
  target.cc = real;
  target.driver_cuda = driver_cuda;
  target.label = real.to_string();
  for (const std::string& path : paths) {
    InspectOptions opts;
    opts.jobs = 1;
    for (const FileInventory& inv : inspect_file(path, opts)) {
      if (inv.images.empty()) {
        if (!inv.errors.empty() && inv.member.empty())
          out.push_back(fmt::format("{}: not readable: {}", inv.display_name(),
                                    inv.errors.front().to_string()));
        continue;
      }
      FileVerdict fv = judge_file(inv, target, catalog);
      out.push_back(fmt::format("{}: on the real {}: {}", inv.display_name(), real.to_string(),
                                fv.summary.empty() ? to_string(fv.verdict) : fv.summary));
      std::map<std::string, std::pair<size_t, std::string>> for_fake;  // target -> count, fate
      for (size_t i = 0; i < inv.images.size(); ++i) {
        const DeviceImage& img = inv.images[i];
        if (img.target.arch != fake.arch()) continue;
        auto& [count, fate] = for_fake[img.target.to_string()];
        ++count;
        const ImageVerdict& iv = fv.images[i];
        fate = runs_natively(iv.fit)    ? "runs on " + real.to_string()
               : iv.fit == Fit::kPtxJit ? "will be JIT-compiled for " + real.to_string()
                                        : "cannot run: " + iv.reason;
      }
      for (const auto& [name, info] : for_fake)
        out.push_back(fmt::format("  {} image(s) for {}, the reported capability: {}", info.first,
                                  name, info.second));
    }
  }
  return out;
}

}  // namespace smcompat::trace
