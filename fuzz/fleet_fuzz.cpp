// libFuzzer target for fleet merge: any bytes given as one node's report, merged beside a fixed
// probe report (so that scans are judged against a node class), give a fleet view or a located
// per-node error without a crash or a hang. Invariants: every given file is accounted for (a node
// error or a read report), and an error's offset lies inside the input.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "smcompat/fleet/fleet.hpp"

namespace {

std::string scratch(const char* name) {
  return "/tmp/smcompat-fleet-fuzz-" + std::to_string(::getpid()) + "-" + name + ".json";
}

// A two-GPU node with a topology matrix, written once.
const std::string& probe_file() {
  static const std::string path = [] {
    std::string p = scratch("probe");
    std::atexit([] {
      std::remove(scratch("probe").c_str());
      std::remove(scratch("input").c_str());
    });
    std::ofstream(p) << R"({"schema": "smcompat.probe/1", "hostname": "node-a", "status": "ok",
      "driver_version": "580.95.05", "cuda_driver_version": 13000,
      "devices": [{"catalog_gpu": "H100 SXM", "cc": "9.0", "memory_bytes": 85899345920},
                  {"catalog_gpu": "RTX PRO 6000 Blackwell", "cc": "12.0"}],
      "topology": {"p2p_access": [[null, true], [false, null]], "nvlink_links": [[null, 2], [2, null]]}})";
    return p;
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& probe = probe_file();
  static const std::string input = scratch("input");
  {
    std::ofstream out(input, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  auto report = smcompat::fleet::merge_reports({probe, input});
  if (report.reports_read != 2) std::abort();
  size_t errors = 0;
  for (const auto& n : report.nodes)
    for (const auto& e : n.errors) {
      ++errors;
      if (e.file != input) std::abort();
      if (e.offset && *e.offset > size) std::abort();
    }
  if (errors != report.reports_failed || errors > 1) std::abort();
  return 0;
}
