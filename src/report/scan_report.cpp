// Text and JSON rendering of ScanReport (include/smcompat/report/scan_report.hpp).
#include "smcompat/report/scan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "smcompat/index/advise.hpp"
#include "smcompat/report/json_document.hpp"
#include "smcompat/report/package_json.hpp"
#include "smcompat/util/json_stream.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {

namespace {

std::string compact_targets(const std::vector<std::string>& t, size_t max_listed = 5) {
  if (t.empty()) return "";
  if (t.size() <= max_listed) {
    std::string s;
    for (const auto& x : t) s += (s.empty() ? "" : " ") + x;
    return s;
  }
  // Sorted as SmTarget, so first/last are the lowest and highest arch.
  return fmt::format("{} … {} ({})", t.front(), t.back(), t.size());
}

nlohmann::json error_json(const Error& e) {
  nlohmann::json j{{"what", e.what}, {"file", e.file}};
  j["offset"] = e.offset ? nlohmann::json(*e.offset) : nlohmann::json(nullptr);
  return j;
}

}  // namespace

std::string styled_verdict(Fit v, const Style& st) {
  switch (v) {
    case Fit::kNative:
    case Fit::kCompatibleSass:
      return st.green(to_string(v));
    case Fit::kPtxJit:
      return st.yellow(to_string(v));
    case Fit::kUnsupportedPtx:
    case Fit::kDriverTooOld:
    case Fit::kNoImage:
    case Fit::kNotLoadable:
    case Fit::kFailed:
      return st.red(to_string(v));
    case Fit::kUnknown:
      break;
  }
  return to_string(v);
}

std::string render_scan_text(const ScanReport& report, const ScanOptions& options,
                             const ScanRenderOptions& render, const Style& st) {
  std::string out;
  const bool judged = options.target.has_value();
  if (judged) {
    const Target& t = *options.target;
    std::string driver = t.driver_cuda
                             ? fmt::format("driver supports CUDA {}{}", t.driver_cuda->to_string(),
                                           t.driver ? " (" + t.driver->to_string() + ")" : "")
                             : "driver not given: PTX ISA versions not checked (--driver)";
    out += fmt::format("{} {} · {}\n", st.bold("Target"), t.label, driver);
    out += st.dim(
               "Predicted from the files (compatibility rules); `smcompat trace` observes the "
               "driver.") +
           "\n\n";
  }
  using A = Table::Align;
  for (const auto& im : report.images) {
    out += fmt::format("{} {} ({}){}{}\n", st.bold("Image"), im.reference.value_or(im.path),
                       to_string(im.format), im.platform.empty() ? "" : " · " + im.platform,
                       im.manifest_digest ? " · " + *im.manifest_digest : "");
    if (im.reference) out += st.dim("  " + im.path) + "\n";
    for (const auto& n : im.notes) out += st.dim("  " + n) + "\n";
    Table layers({"layer", "digest", "media type", "size", "entries", "whiteouts"},
                 {A::kRight, A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight});
    for (size_t i = 0; i < im.layers.size(); ++i) {
      const auto& l = im.layers[i];
      std::string digest = l.digest.size() > 19 ? l.digest.substr(0, 19) + "…" : l.digest;
      layers.add_row({std::to_string(i + 1), digest, l.media_type.empty() ? "-" : l.media_type,
                      human_bytes(l.size), std::to_string(l.entries), std::to_string(l.whiteouts)});
    }
    out += layers.render(st, "  ");
    out += st.dim(fmt::format("  {} files in the flattened image", im.files_in_image)) + "\n\n";
  }
  std::vector<std::string> headers = {"package", "files", "SASS", "PTX"};
  std::vector<A> align = {A::kLeft, A::kRight, A::kLeft, A::kLeft};
  if (judged) {
    for (const char* h : {"verdict", "native", "compat", "jit", "none"}) headers.push_back(h);
    for (A a : {A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight}) align.push_back(a);
  } else {
    headers.push_back("images");
    align.push_back(A::kRight);
  }
  Table table(headers, align);
  for (const auto& p : report.packages) {
    std::vector<std::string> row = {p.name, std::to_string(p.files.size()),
                                    compact_targets(p.sass_targets, render.verbose ? 99 : 5),
                                    compact_targets(p.ptx_targets, render.verbose ? 99 : 3)};
    if (!p.lto_targets.empty() && p.sass_targets.empty() && p.ptx_targets.empty())
      row[2] = "(LTO-IR only)";
    if (judged) {
      std::array<size_t, kVerdictFitCount> c{};
      for (size_t fi : p.files)
        if (const auto& v = report.files[fi].verdict)
          for (size_t k = 0; k < kVerdictFitCount; ++k) c[k] += v->unit_counts[k];
      std::string verdict = p.verdict                            ? styled_verdict(*p.verdict, st)
                            : p.fit && !p.fit->libraries.empty() ? st.dim("link inputs only")
                                                                 : st.dim("no device code");
      if (p.partial) verdict += st.yellow(" (partial)");
      row.push_back(verdict);
      auto n = [&](Fit f) { return c[static_cast<size_t>(f)]; };
      row.push_back(std::to_string(n(Fit::kNative)));
      row.push_back(std::to_string(n(Fit::kCompatibleSass)));
      row.push_back(std::to_string(n(Fit::kPtxJit) + n(Fit::kUnsupportedPtx)));
      row.push_back(std::to_string(n(Fit::kNoImage)));
    } else {
      row.push_back(std::to_string(p.images));
    }
    table.add_row(std::move(row));
  }
  if (table.empty()) {
    out += "No device code found.\n";
  } else {
    out += table.render(st);
  }
  if (judged) {
    out += "\n" +
           st.dim(
               "native/compat/jit/none: loading units (fatbin containers and bare cubins) "
               "by predicted outcome. partial: some units have no image for this GPU.") +
           "\n";
  }

  // Why: per package, how it runs and what it does not load; per file, the units that do not
  // run natively.
  std::string details;
  for (const auto& p : report.packages) {
    // A wheel is for one machine: an x86_64 wheel says nothing about what a GB10 or Grace
    // machine (aarch64) would install.
    if (judged && p.kind == "wheel" && default_machine_for(*options.target) == "aarch64" &&
        !p.files.empty() &&
        report.files[p.files.front()].inventory.path.find("x86_64") != std::string::npos)
      details += fmt::format(
          "  {} {} is an x86_64 wheel; {} machines are aarch64: judge its aarch64 wheel (pip "
          "download --platform manylinux_2_28_aarch64 --only-binary=:all: --no-deps {})\n",
          st.yellow("note"), p.name, options.target->name, p.name);
    if (!p.fit || !p.fit->has_device_code) continue;
    const PackageFit& pf = *p.fit;
    bool plain =
        pf.route == to_string(pf.fit) && pf.not_running.empty() && pf.driver_reason.empty();
    if (plain && !render.verbose) continue;
    // "vllm: native; 83 units in 3 libraries JIT", "xformers: ptx-jit (JIT only)".
    std::string_view fit_name = to_string(pf.fit);
    std::string route = starts_with(pf.route, fit_name)
                            ? styled_verdict(pf.fit, st) + pf.route.substr(fit_name.size())
                            : styled_verdict(pf.fit, st) + " (" + pf.route + ")";
    details += fmt::format("  {}: {}\n", st.bold(p.name), route);
    if (!pf.driver_reason.empty()) details += "      " + pf.driver_reason + "\n";
    for (const auto& l : pf.jit_libraries) details += st.dim("      JIT units in " + l) + "\n";
    for (const auto& l : pf.not_running) details += "      not loaded here: " + l + "\n";
  }
  for (const auto& f : report.files) {
    const auto& inv = f.inventory;
    for (const auto& e : inv.errors) details += "  " + st.red("error") + " " + e.to_string() + "\n";
    if (!f.verdict || !f.verdict->has_device_code) continue;
    const FileVerdict& v = *f.verdict;
    if (!better(Fit::kCompatibleSass, v.verdict) && !v.partial && v.resource_warnings.empty() &&
        !render.verbose)
      continue;
    details += fmt::format("  {}{} {}: {}\n", styled_verdict(v.verdict, st),
                           v.partial ? st.yellow(" (partial)") : "", inv.display_name(), v.summary);
    if (v.partial && v.alternatives)
      details += st.dim(
                     "      Libraries built per architecture select among such units at run "
                     "time, so this can be fine; `smcompat trace` shows what really loads.") +
                 "\n";
    size_t shown = 0;
    const size_t limit = render.verbose ? SIZE_MAX : 3;
    std::map<std::string, size_t> elsewhere;
    for (const auto& u : v.units) {
      if (!better(Fit::kCompatibleSass, u.verdict)) continue;
      if ((u.specialized_elsewhere || !u.loadable || u.no_code) && !render.verbose)
        continue;  // counted in the summary, or nothing to launch
      if (shown++ >= limit) continue;
      std::string where = u.section.empty() ? fmt::format("at {:#x}", u.offset)
                                            : fmt::format("{} at {:#x}", u.section, u.offset);
      std::string what =
          u.chosen ? fmt::format("{} — {}", inv.images[*u.chosen].target.to_string(), u.reason)
                   : u.reason;
      details += fmt::format("      {} {}: {}\n",
                             u.bare ? "cubin" : (u.loadable ? "container" : "pre-link container"),
                             where, what);
    }
    size_t not_shown = shown > limit ? shown - limit : 0;
    if (not_shown)
      details += st.dim(fmt::format("      … and {} more (-v lists all)\n", not_shown));
    for (const auto& w : v.resource_warnings)
      details +=
          fmt::format("      {} {}: {}\n", st.yellow("resource"), demangle(w.kernel), w.message);
    if (v.verdict == Fit::kPtxJit)
      details +=
          st.dim(
              "      PTX JIT compiles at first load (seconds to minutes for large libraries; "
              "cached in ~/.nv/ComputeCache).") +
          "\n";
  }
  for (const auto& e : report.errors)
    details += "  " + st.red("error") + " " + e.to_string() + "\n";
  for (const auto& e : report.warnings)
    details += "  " + st.yellow("warning") + " " + e.to_string() + "\n";
  if (!details.empty()) out += "\n" + details;

  if (render.deep) {
    for (const auto& f : report.files) {
      const auto& inv = f.inventory;
      bool any = false;
      for (const auto& img : inv.images) any = any || (img.cubin && !img.cubin->kernels.empty());
      if (!any) continue;
      out += "\n" + st.bold(inv.display_name()) + "\n";
      // The kernel name goes last: the table pads every other column to its widest cell, and
      // demangled template names run to thousands of characters (libcublasLt: 9,225), which
      // padded 66,719 rows to 618 MB of output.
      std::vector<std::string> headers{"image", "regs", "smem", "stack", "max threads", "cluster"};
      std::vector<A> aligns{A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kLeft};
      if (judged) {
        headers.push_back("verdict");
        aligns.push_back(A::kLeft);
      }
      headers.push_back("kernel");
      aligns.push_back(A::kLeft);
      Table kt(std::move(headers), std::move(aligns));
      for (size_t i = 0; i < inv.images.size(); ++i) {
        const auto& img = inv.images[i];
        if (!img.cubin) continue;
        std::string verdict;
        if (f.verdict) {
          verdict = to_string(f.verdict->images[i].fit);
        }
        for (const auto& k : img.cubin->kernels) {
          auto opt = [](const std::optional<uint32_t>& v) { return v ? std::to_string(*v) : "?"; };
          std::string threads =
              k.max_threads
                  ? std::to_string((*k.max_threads)[0] * (*k.max_threads)[1] * (*k.max_threads)[2])
                  : "";
          std::string cluster = k.cluster_dims
                                    ? fmt::format("{}x{}x{}", (*k.cluster_dims)[0],
                                                  (*k.cluster_dims)[1], (*k.cluster_dims)[2])
                                    : "";
          std::vector<std::string> row{
              img.target.to_string(), opt(k.registers), std::to_string(k.shared_bytes),
              opt(k.stack_bytes),     threads,          cluster};
          if (judged) row.push_back(verdict);
          row.push_back(k.demangled.empty() ? demangle(k.name) : k.demangled);
          kt.add_row(std::move(row));
        }
      }
      out += kt.render(st, "  ");
    }
  }
  out += "\n" +
         st.dim(fmt::format("{} files considered, {} skipped by name, {} with device code or "
                            "errors, {} read.",
                            report.files_seen, report.files_skipped, report.files.size(),
                            human_bytes(report.bytes_scanned))) +
         "\n";
  if (!judged && !report.packages.empty())
    out +=
        st.dim("Add --gpu NAME (e.g. --gpu \"RTX 5090\") or --target sm_120 for a verdict.") + "\n";
  return out;
}

nlohmann::json target_to_json(const Target& t) {
  using nlohmann::json;
  return {{"label", t.label},
          {"cc", t.cc.to_string()},
          {"gpu", t.gpu ? json(t.gpu->name) : json(nullptr)},
          {"driver_cuda", t.driver_cuda ? json(t.driver_cuda->to_string()) : json(nullptr)},
          {"driver", t.driver ? json(t.driver->to_string()) : json(nullptr)}};
}

namespace {

// One fatbin entry (image) of a file: with --deep its kernels, the biggest part of a document.
nlohmann::json entry_json(const ScannedFile& f, size_t i) {
  using nlohmann::json;
  const auto& img = f.inventory.images[i];
  json je{{"kind", to_string(img.target.kind)},
          {"target", img.target.to_string()},
          {"section", img.section},
          {"container_offset", img.container_offset},
          {"entry_offset", img.entry_offset},
          {"in_container", img.in_container},
          {"compression", to_string(img.compression)},
          {"stored_size", img.stored_size},
          {"uncompressed_size", img.uncompressed_size},
          {"relocatable", img.relocatable},
          {"debug", img.debug}};
  je["ptx_version"] = img.ptx_version ? json(img.ptx_version->to_string()) : json(nullptr);
  // Counted kernels (null where not counted): a reader judging the file again needs to know
  // a kernel-less image is no unit (fleet merge).
  je["kernel_count"] = img.kernels ? json(*img.kernels) : json(nullptr);
  if (!img.identifier.empty()) je["identifier"] = img.identifier;
  if (!img.options.empty()) je["options"] = img.options;
  if (f.verdict) {
    je["verdict"] = to_string(f.verdict->images[i].fit);
    je["reason"] = f.verdict->images[i].reason;
  }
  if (img.cubin) {
    je["kernels"] = json::array();
    for (const auto& k : img.cubin->kernels) {
      json jk{{"name", k.name},
              {"demangled", k.demangled.empty() ? demangle(k.name) : k.demangled},
              {"shared_bytes", k.shared_bytes},
              {"sass_bytes", k.sass_bytes}};
      jk["registers"] = k.registers ? json(*k.registers) : json(nullptr);
      jk["stack_bytes"] = k.stack_bytes ? json(*k.stack_bytes) : json(nullptr);
      if (k.max_threads) jk["max_threads"] = *k.max_threads;
      if (k.reqntid) jk["reqntid"] = *k.reqntid;
      if (k.cluster_dims) jk["cluster_dims"] = *k.cluster_dims;
      je["kernels"].push_back(std::move(jk));
    }
  }
  if (img.ptx) {
    je["ptx_target"] = img.ptx->target_text;
    je["ptx_entries"] = img.ptx->entries;
  }
  if (img.decode_error) je["decode_error"] = error_json(*img.decode_error);
  return je;
}

// One scanned file: its small fields ready, its containers, entries and units streamed one by one.
void write_scanned_file(JsonWriter& w, const ScannedFile& f) {
  using nlohmann::json;
  const auto& inv = f.inventory;
  json jf{{"path", inv.path},
          {"member", inv.member},
          {"package", f.package},
          {"format", to_string(inv.format)},
          {"size", inv.size}};
  jf["errors"] = json::array();
  for (const auto& e : inv.errors) jf["errors"].push_back(error_json(e));
  jf["warnings"] = json::array();
  for (const auto& e : inv.warnings) jf["warnings"].push_back(error_json(e));
  jf["containers"] = inv.containers.size();
  std::vector<StreamedField> streamed;
  // Every container, the empty ones too: a reader that judges the file again (fleet merge)
  // needs them, e.g. the empty device-linked .nv_fatbin of a PTX-only -rdc library.
  streamed.push_back({"container_list", [&inv](JsonWriter& w) {
                        w.array(inv.containers, [](JsonWriter& w, const auto& c) {
                          w.value({{"section", c.section},
                                   {"offset", c.offset},
                                   {"size", c.size},
                                   {"first_image", c.first_image},
                                   {"images", c.image_count},
                                   {"relocatable", c.relocatable}});
                        });
                      }});
  streamed.push_back({"entries", [&f](JsonWriter& w) {
                        w.begin_array();
                        for (size_t i = 0; i < f.inventory.images.size(); ++i)
                          w.value(entry_json(f, i));
                        w.end_array();
                      }});
  if (f.verdict) {
    const auto& v = *f.verdict;
    jf["verdict"] = v.has_device_code ? json(to_string(v.verdict)) : json(nullptr);
    json counts;
    for (size_t k = 0; k < kVerdictFitCount; ++k)
      counts[to_string(static_cast<Fit>(k))] = v.unit_counts[k];
    jf["unit_counts"] = counts;
    jf["specialized_elsewhere"] = v.specialized_elsewhere;
    jf["prelink_units"] = v.prelink_units;
    jf["no_code_units"] = v.no_code_units;
    jf["alternatives"] = v.alternatives;
    if (!v.driver_reason.empty()) jf["driver_reason"] = v.driver_reason;
    if (v.prelink_units)
      jf["jit_link"] = {{"verdict", v.jit_link ? json(to_string(*v.jit_link)) : json(nullptr)},
                        {"used", v.jit_link_used},
                        {"reason", v.jit_link_reason}};
    jf["summary"] = v.summary;
    streamed.push_back({"units", [&v](JsonWriter& w) {
                          w.array(v.units, [](JsonWriter& w, const auto& u) {
                            json ju{{"section", u.section},
                                    {"offset", u.offset},
                                    {"verdict", to_string(u.verdict)},
                                    {"bare", u.bare},
                                    {"specialized_elsewhere", u.specialized_elsewhere},
                                    {"loadable", u.loadable},
                                    {"reason", u.reason},
                                    {"images", u.images}};
                            ju["chosen"] = u.chosen ? json(*u.chosen) : json(nullptr);
                            w.value(std::move(ju));
                          });
                        }});
    jf["resource_warnings"] = json::array();
    for (const auto& rw : v.resource_warnings)
      jf["resource_warnings"].push_back(
          {{"entry", rw.image}, {"kernel", rw.kernel}, {"message", rw.message}});
  }
  w.object(std::move(jf), std::move(streamed));
}

}  // namespace

void write_scan_json(JsonWriter& w, const ScanReport& report, const ScanOptions& options,
                     const ScanRenderOptions& render) {
  using nlohmann::json;
  json j = node_json_document(kScanSchema, render.argv);
  j["prediction"] = true;
  if (options.target) {
    j["target"] = target_to_json(*options.target);
  } else {
    j["target"] = nullptr;
  }
  j["packages"] = json::array();
  for (const auto& p : report.packages) {
    json jp{{"name", p.name},         {"version", p.version},
            {"kind", p.kind},         {"files", p.files.size()},
            {"images", p.images},     {"errors", p.errors},
            {"sass", p.sass_targets}, {"ptx", p.ptx_targets},
            {"lto", p.lto_targets},   {"resource_warnings", p.resource_warnings}};
    jp["verdict"] = p.verdict ? json(to_string(*p.verdict)) : json(nullptr);
    if (p.fit && p.fit->has_device_code) jp["rollup"] = package_fit_json(*p.fit);
    if (!p.runtime.cuda.empty())
      jp["cuda_runtime"] = {{"cuda", p.runtime.cuda}, {"evidence", p.runtime.evidence}};
    j["packages"].push_back(std::move(jp));
  }
  j["errors"] = json::array();
  for (const auto& e : report.errors) j["errors"].push_back(error_json(e));
  j["warnings"] = json::array();
  for (const auto& e : report.warnings) j["warnings"].push_back(error_json(e));
  j["cuda_runtimes"] = json::array();
  for (const auto& c : report.cuda_runtimes)
    j["cuda_runtimes"].push_back({{"path", c.path},
                                  {"member", c.member},
                                  {"major", c.major},
                                  {"version", c.version ? json(*c.version) : json(nullptr)}});
  if (!report.images.empty()) {
    j["images"] = json::array();
    for (const auto& im : report.images) {
      json ji{{"path", im.path},
              {"format", to_string(im.format)},
              {"reference", im.reference ? json(*im.reference) : json(nullptr)},
              {"platform", im.platform.empty() ? json(nullptr) : json(im.platform)},
              {"manifest_digest", im.manifest_digest ? json(*im.manifest_digest) : json(nullptr)},
              {"files_in_image", im.files_in_image},
              {"notes", im.notes}};
      ji["layers"] = json::array();
      for (const auto& l : im.layers)
        ji["layers"].push_back({{"digest", l.digest.empty() ? json(nullptr) : json(l.digest)},
                                {"media_type", l.media_type},
                                {"size", l.size},
                                {"entries", l.entries},
                                {"whiteouts", l.whiteouts}});
      j["images"].push_back(std::move(ji));
    }
  }
  j["stats"] = {{"files_seen", report.files_seen},
                {"files_skipped", report.files_skipped},
                {"files_reported", report.files.size()},
                {"bytes_scanned", report.bytes_scanned}};
  // The files, with every entry (and with --deep every kernel), are written as they are read
  // from the report: the document is never a tree as a whole.
  w.object(std::move(j),
           {{"files", [&report](JsonWriter& w) { w.array(report.files, write_scanned_file); }}});
}

nlohmann::json scan_to_json(const ScanReport& report, const ScanOptions& options,
                            const ScanRenderOptions& render) {
  return json_tree([&](JsonWriter& w) { write_scan_json(w, report, options, render); });
}

}  // namespace smcompat
