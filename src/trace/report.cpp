// Reading, analysing and printing the trace shim's records. Classification follows
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
#include "smcompat/util/table.hpp"
#include "smcompat/trace/trace.hpp"
#include "smcompat/verdict/verdict.hpp"

namespace smcompat::trace {

using nlohmann::json;

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::kNative:
      return "native";
    case Outcome::kCompatibleSass:
      return "compatible-sass";
    case Outcome::kPtxJit:
      return "ptx-jit";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kUnknown:
      return "unknown";
  }
  return "?";
}

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
      l.driver_cuda = opt<int>(j, "driver_cuda");
      l.load_ms = opt<double>(j, "load_ms").value_or(0);
      l.jit_wall_ms = opt<double>(j, "jit_wall_ms");
      l.jit_error_log = str(j, "jit_error_log");
      l.images = parse_images(j);
      l.inventory_error = str(j, "inventory_error");
      if (auto it = j.find("functions"); it != j.end() && it->is_array())
        for (const json& f : *it)
          if (f.is_object()) l.functions.push_back(parse_function(f));
      by_id[{pid, l.id}] = log.loads.size();
      log.loads.push_back(std::move(l));
    } else if (ev == "get_function" || ev == "get_kernel") {
      auto id = opt<uint64_t>(j, "id");
      if (!id) continue;
      auto it = by_id.find({pid, *id});
      if (it == by_id.end()) continue;
      TracedLoad& l = log.loads[it->second];
      if (j.value("first_use", false)) l.first_use_ms = opt<double>(j, "ms");
      if (ev == "get_function" && opt<int>(j, "result").value_or(-1) == 0) {
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
    p = {Outcome::kFailed, std::nullopt, 209, "no image can run on " + cc.to_string()};
    return p;
  }
  const UnitVerdict& u = fv.units.front();
  p.reason = u.reason;
  if (u.chosen) p.image = inv.images[*u.chosen].target;
  switch (u.verdict) {
    case Fit::kNative:
      p.outcome = Outcome::kNative;
      break;
    case Fit::kCompatibleSass:
      p.outcome = Outcome::kCompatibleSass;
      break;
    case Fit::kPtxJit:
      p.outcome = Outcome::kPtxJit;
      if (env.disable_ptx_jit) {
        p = {Outcome::kFailed, std::nullopt, 223, "only PTX fits, and CUDA_DISABLE_PTX_JIT=1"};
      }
      break;
    case Fit::kUnsupportedPtx:
      p.outcome = Outcome::kFailed;
      p.image.reset();
      p.error = 222;
      break;
    default:
      p.outcome = Outcome::kFailed;
      p.image.reset();
      p.error = 209;
      break;
  }
  if (p.reason.empty()) p.reason = to_string(u.verdict);
  return p;
}

namespace {

// Classifies one load from the driver's answers (observed).
void classify(TracedLoad& l) {
  if (l.result < 0) {
    l.outcome = Outcome::kUnknown;
    l.how = "the record carries no result";
    return;
  }
  if (l.result != 0) {
    l.outcome = Outcome::kFailed;
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
  if (!bv) {
    l.outcome = Outcome::kUnknown;
    l.how = "the driver reported no function attributes";
    return;
  }
  int dev_arch = l.device_cc ? l.device_cc->arch() : -1;
  // SASS of the reported binary version offered? (`a`/`f` and base cubins of one arch share it.)
  const OfferedImage* sass = nullptr;
  for (const OfferedImage& img : l.images)
    if (img.target.kind == ImageKind::kSass && img.target.arch == *bv) {
      sass = &img;
      break;
    }
  if (sass) {
    l.chosen = sass->target;
    l.outcome = *bv == dev_arch ? Outcome::kNative : Outcome::kCompatibleSass;
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
    l.outcome = Outcome::kPtxJit;
    l.how = fmt::format("JIT of {} to sm_{}", ptx->target.to_string(), *bv);
    return;
  }
  l.outcome = Outcome::kUnknown;
  l.how = fmt::format("binary version {} matches no offered image", *bv);
}

}  // namespace

void analyze(TraceLog& log, const Catalog& catalog) {
  for (TracedLoad& l : log.loads) {
    classify(l);
    JitEnv env;
    for (const TracedProcess& p : log.processes)
      if (p.pid == l.pid) env = p.env;
    if (!l.device_cc || l.images.empty()) continue;
    std::optional<Version> driver;
    if (l.driver_cuda) driver = Version::from_cuda_int(*l.driver_cuda);
    l.predicted = predict(l.images, *l.device_cc, driver, env, catalog);
    const Prediction& p = *l.predicted;
    if (l.outcome == Outcome::kUnknown) continue;  // nothing observed to compare
    if (p.outcome != l.outcome) {
      l.disagrees = true;
    } else if (p.outcome == Outcome::kFailed) {
      l.disagrees = p.error != l.result;
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
        fate = iv.fit == Fit::kNative || iv.fit == Fit::kCompatibleSass
                   ? "runs on " + real.to_string()
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

namespace {

std::string images_text(const TracedLoad& l) {
  if (l.images.empty()) return l.inventory_error.empty() ? "-" : "unreadable";
  std::string s;
  for (const OfferedImage& img : l.images) {
    if (!s.empty()) s += ", ";
    s += img.target.to_string();
  }
  return s;
}

std::string fmt_ms(double ms) {
  return ms < 10 ? fmt::format("{:.2f}", ms) : fmt::format("{:.1f}", ms);
}

}  // namespace

std::string render_text(const TraceLog& log, const PrintOptions& options) {
  Style style = options.color ? Style::for_stream(stdout, Style::Mode::kAlways) : Style::plain();
  std::string out;
  out += style.bold("smcompat trace") + (options.command.empty() ? "" : ": " + options.command) +
         (options.exit_status ? fmt::format(" (exit status {})", *options.exit_status) : "") + "\n";
  if (log.processes.empty()) {
    out +=
        "  the shim never started: the program did not load it (static binary, setuid, or "
        "LD_PRELOAD removed)\n";
  }
  // Devices seen (observed).
  std::map<int, std::string> devices;
  std::optional<int> driver;
  for (const TracedLoad& l : log.loads) {
    if (l.device && l.device_cc) devices[*l.device] = l.device_cc->to_string();
    if (l.driver_cuda) driver = l.driver_cuda;
  }
  for (const auto& [dev, cc] : devices)
    out += fmt::format("  device {}: compute capability {} (as the driver reports it){}\n", dev, cc,
                       driver ? fmt::format(", driver supports CUDA {}",
                                            Version::from_cuda_int(*driver).to_string())
                              : "");
  for (const TracedProcess& p : log.processes) {
    if (p.report_cc.empty()) continue;
    out += fmt::format(
        "  capability override: {} reported to {} (pid {}); NVML left truthful\n", p.report_cc,
        p.only_for.empty() ? "every caller"
                           : "callers in " + fmt::format("{}", fmt::join(p.only_for, ", ")),
        p.pid);
  }
  // How the program reached the driver (lookups the shim answered).
  std::map<std::string, size_t> via;
  bool bootstrap = false;
  for (const TracedLookup& k : log.lookups) {
    ++via[k.via];
    if (k.name == "cuGetProcAddress" && k.wrapped && k.version) bootstrap = true;
  }
  if (!via.empty()) {
    std::string paths;
    for (const auto& [name, n] : via)
      paths += fmt::format("{}{} ({})", paths.empty() ? "" : ", ", name, n);
    out += fmt::format("  lookups answered by the shim (bootstrap and wrapped names): {}{}\n",
                       paths, bootstrap ? "; cuGetProcAddress bootstrap answered by the shim" : "");
  }
  for (const CcQuery& q : log.cc_queries) {
    std::string caller = q.caller.empty() ? "?" : q.caller.substr(q.caller.rfind('/') + 1);
    out += fmt::format("    {} from {}: real {}, reported {}{}\n", q.api, caller, q.real_cc,
                       q.reported_cc, q.overridden ? "" : " (not overridden: not in --only-for)");
  }

  if (!log.loads.empty()) {
    Table table({"#", "api", "source", "offered", "observed (driver)", "how", "load ms",
                 "first use ms", "predicted"},
                {Table::Align::kRight, Table::Align::kLeft, Table::Align::kLeft,
                 Table::Align::kLeft, Table::Align::kLeft, Table::Align::kLeft,
                 Table::Align::kRight, Table::Align::kRight, Table::Align::kLeft});
    for (const TracedLoad& l : log.loads) {
      std::string observed = to_string(l.outcome);
      if (l.outcome == Outcome::kNative) observed = style.green(observed);
      if (l.outcome == Outcome::kPtxJit || l.outcome == Outcome::kCompatibleSass)
        observed = style.yellow(observed);
      if (l.outcome == Outcome::kFailed) observed = style.red(observed);
      std::string source = l.source == "file" ? l.path : l.source;
      if (!l.format.empty()) source += " (" + l.format + ")";
      std::string predicted = "-";
      if (l.predicted) {
        predicted = to_string(l.predicted->outcome);
        if (l.predicted->image) predicted += " " + l.predicted->image->to_string();
        if (l.predicted->outcome == Outcome::kFailed)
          predicted += fmt::format(" ({})", l.predicted->error);
        if (l.disagrees) predicted += " " + style.red("DISAGREES");
      }
      std::string load = fmt_ms(l.load_ms);
      if (l.jit_wall_ms && *l.jit_wall_ms > 0)
        load += fmt::format(" (JIT {})", fmt_ms(*l.jit_wall_ms));
      table.add_row({std::to_string(l.id), l.api, source, images_text(l), observed, l.how, load,
                     l.first_use_ms ? fmt_ms(*l.first_use_ms) : "-", predicted});
    }
    out += "\n" + table.render(style, "  ");
    for (const TracedLoad& l : log.loads) {
      if (!l.jit_error_log.empty())
        out += fmt::format("  load #{} JIT log: {}\n", l.id, l.jit_error_log);
      if (!l.inventory_error.empty())
        out += fmt::format("  load #{}: image not readable: {}\n", l.id, l.inventory_error);
    }
  } else {
    out += "  no module or library loads were seen\n";
  }

  TraceSummary s = summarize(log);
  auto count = [&](const std::map<Outcome, size_t>& m, Outcome o) {
    auto it = m.find(o);
    return it == m.end() ? size_t{0} : it->second;
  };
  out += fmt::format(
      "\nsummary: {} load(s): {} native, {} compatible SASS, {} JIT, {} failed, {} unknown; "
      "kernels: {} native, {} compatible SASS, {} JIT",
      s.loads, count(s.loads_by_outcome, Outcome::kNative),
      count(s.loads_by_outcome, Outcome::kCompatibleSass),
      count(s.loads_by_outcome, Outcome::kPtxJit), count(s.loads_by_outcome, Outcome::kFailed),
      count(s.loads_by_outcome, Outcome::kUnknown), count(s.functions_by_outcome, Outcome::kNative),
      count(s.functions_by_outcome, Outcome::kCompatibleSass),
      count(s.functions_by_outcome, Outcome::kPtxJit));
  out += fmt::format("\n         {} disagreement(s) between the driver and the prediction{}\n",
                     s.disagreements,
                     s.disagreements ? " (marked DISAGREES above; the prediction's ranking of "
                                       "several fitting images is unverified)"
                                     : "");
  out +=
      "  observed = what the driver reported (CU_FUNC_ATTRIBUTE_BINARY_VERSION/PTX_VERSION); "
      "predicted = smcompat's model from the images alone\n";
  for (const Error& w : log.warnings) out += "  warning: " + w.to_string() + "\n";
  return out;
}

std::string render_json(const TraceLog& log, const PrintOptions& options,
                        const std::vector<std::string>& argv) {
  json j;
  j["schema"] = "smcompat.trace/1";
  j["tool_version"] = SMCOMPAT_VERSION;
  j["argv"] = argv;
  if (!options.command.empty()) j["command"] = options.command;
  if (options.exit_status) j["exit_status"] = *options.exit_status;
  json procs = json::array();
  for (const TracedProcess& p : log.processes) {
    json pj = {{"pid", p.pid}, {"exe", p.exe}};
    if (!p.report_cc.empty()) {
      pj["report_cc"] = p.report_cc;
      pj["only_for"] = p.only_for;
      pj["nvml_overridden"] = false;
    }
    procs.push_back(std::move(pj));
  }
  j["processes"] = std::move(procs);
  if (!options.override_implications.empty()) {
    json oj = {{"predicted", true},
               {"implications", options.override_implications},
               {"files", options.override_file_predictions}};
    if (options.real_cc) oj["real_cc"] = options.real_cc->to_string();
    j["override"] = std::move(oj);
  }
  json loads = json::array();
  for (const TracedLoad& l : log.loads) {
    json lj = {{"id", l.id},         {"pid", l.pid},         {"record_line", l.line},
               {"api", l.api},       {"kind", l.kind},       {"source", l.source},
               {"result", l.result}, {"load_ms", l.load_ms}, {"outcome", to_string(l.outcome)},
               {"how", l.how},       {"observed", true},     {"unloaded", l.unloaded}};
    if (!l.path.empty()) lj["path"] = l.path;
    if (!l.format.empty()) lj["format"] = l.format;
    if (!l.error.empty()) lj["error"] = l.error;
    if (l.device) lj["device"] = *l.device;
    if (l.device_cc) lj["device_cc"] = l.device_cc->to_string();
    if (l.driver_cuda) lj["driver_cuda"] = *l.driver_cuda;
    if (l.jit_wall_ms) lj["jit_wall_ms"] = *l.jit_wall_ms;
    if (!l.jit_error_log.empty()) lj["jit_error_log"] = l.jit_error_log;
    if (l.first_use_ms) lj["first_use_ms"] = *l.first_use_ms;
    if (l.chosen) lj["chosen"] = l.chosen->to_string();
    json imgs = json::array();
    for (const OfferedImage& img : l.images) {
      json ij = {{"target", img.target.to_string()}};
      if (img.ptx_isa) ij["ptx_isa"] = img.ptx_isa->to_string();
      imgs.push_back(std::move(ij));
    }
    lj["images"] = std::move(imgs);
    if (!l.inventory_error.empty()) lj["inventory_error"] = l.inventory_error;
    json fns = json::array();
    for (const TracedFunction& f : l.functions) {
      json fj = {{"name", f.name}};
      if (f.binary_version) fj["binary_version"] = *f.binary_version;
      if (f.ptx_version) fj["ptx_version"] = *f.ptx_version;
      if (f.num_regs) fj["num_regs"] = *f.num_regs;
      fns.push_back(std::move(fj));
    }
    lj["functions"] = std::move(fns);
    if (l.predicted) {
      json pj = {{"outcome", to_string(l.predicted->outcome)}, {"reason", l.predicted->reason}};
      if (l.predicted->image) pj["image"] = l.predicted->image->to_string();
      if (l.predicted->error) pj["error"] = l.predicted->error;
      lj["predicted"] = std::move(pj);
    }
    lj["disagrees"] = l.disagrees;
    loads.push_back(std::move(lj));
  }
  j["loads"] = std::move(loads);
  json queries = json::array();
  for (const CcQuery& q : log.cc_queries)
    queries.push_back({{"api", q.api},
                       {"caller", q.caller},
                       {"real_cc", q.real_cc},
                       {"reported_cc", q.reported_cc},
                       {"overridden", q.overridden},
                       {"pid", q.pid}});
  j["cc_queries"] = std::move(queries);
  json lookups = json::array();
  for (const TracedLookup& k : log.lookups) {
    json kj = {{"via", k.via},
               {"name", k.name},
               {"wrapped", k.wrapped},
               {"found", k.found},
               {"pid", k.pid}};
    if (k.version) {
      kj["version"] = *k.version;
      kj["flags"] = k.flags;
    }
    lookups.push_back(std::move(kj));
  }
  j["lookups"] = std::move(lookups);
  TraceSummary s = summarize(log);
  json sj = {{"loads", s.loads},
             {"disagreements", s.disagreements},
             {"overridden_queries", s.overridden_queries}};
  json by = json::object(), fby = json::object();
  for (Outcome o : {Outcome::kNative, Outcome::kCompatibleSass, Outcome::kPtxJit, Outcome::kFailed,
                    Outcome::kUnknown}) {
    by[to_string(o)] = s.loads_by_outcome.count(o) ? s.loads_by_outcome.at(o) : 0;
    fby[to_string(o)] = s.functions_by_outcome.count(o) ? s.functions_by_outcome.at(o) : 0;
  }
  sj["loads_by_outcome"] = std::move(by);
  sj["functions_by_outcome"] = std::move(fby);
  j["summary"] = std::move(sj);
  json warnings = json::array();
  for (const Error& w : log.warnings) warnings.push_back(w.to_string());
  j["warnings"] = std::move(warnings);
  return j.dump(2) + "\n";
}

}  // namespace smcompat::trace
