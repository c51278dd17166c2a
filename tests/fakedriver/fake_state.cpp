// The fake driver's configuration: the GPU set named by SMCOMPAT_FAKE_GPUS, resolved through the
// built-in catalog (data/catalog.json), and the CUDA_VISIBLE_DEVICES filter as the real driver
// applies it (driver-api.md §7: CUDA ordinals differ from NVML indices). Compiled into both fake
// libraries; each reads the environment once. See README.md for the variables.
#include "fake_state.hpp"

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string_view>

#include "smcompat/catalog/catalog.hpp"

namespace smcompat::fake {

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string(fallback);
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.push_back(trim(s.substr(start, pos == std::string_view::npos ? pos : pos - start)));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// A stable, well-formed UUID per (position, name): "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
std::string make_uuid(int index, const std::string& name) {
  std::string key = std::to_string(index) + "/" + name;
  uint64_t a = fnv1a(key), b = fnv1a(key, a ^ 0x9e3779b97f4a7c15ull);
  char buf[64];
  std::snprintf(buf, sizeof buf, "GPU-%08x-%04x-%04x-%04x-%012llx", unsigned(a >> 32),
                unsigned((a >> 16) & 0xffff), unsigned(a & 0xffff), unsigned(b >> 48),
                static_cast<unsigned long long>(b & 0xffffffffffffull));
  return buf;
}

bool parse_int(const std::string& s, int& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (*end != '\0' || v < -1000000 || v > 1000000) return false;
  out = static_cast<int>(v);
  return true;
}

std::optional<FakeGpu> make_gpu(const std::string& query, int index, FakeState& st) {
  const Catalog& cat = Catalog::builtin();
  const GpuSpec* spec = cat.find_gpu(query);
  if (!spec) {
    st.errors.push_back("SMCOMPAT_FAKE_GPUS: no catalog GPU matches \"" + query + "\"");
    return std::nullopt;
  }
  FakeGpu g;
  g.name = spec->name.rfind("NVIDIA ", 0) == 0 ? spec->name : "NVIDIA " + spec->name;
  g.cc_major = spec->cc.major;
  g.cc_minor = spec->cc.minor;
  g.reported_cc_major = g.cc_major;
  g.reported_cc_minor = g.cc_minor;
  char bus[32];
  std::snprintf(bus, sizeof bus, "00000000:%02x:00.0", 0x01 + 0x10 * index);
  g.pci_bus_id = bus;
  g.uuid = make_uuid(index, g.name);
  g.physical_index = index;
  g.sms = spec->sms;
  if (spec->memory_gib) g.total_mem = static_cast<uint64_t>(*spec->memory_gib * 1073741824.0);
  if (spec->l2_mb) g.l2_bytes = static_cast<int>(*spec->l2_mb * 1048576.0);
  if (spec->boost_mhz) g.clock_khz = *spec->boost_mhz * 1000;
  if (spec->bus_width_bits) g.bus_width_bits = *spec->bus_width_bits;
  // Choose the memory clock so that 2 * clock * width / 8 reproduces the catalog bandwidth.
  if (spec->bandwidth_gbs && spec->bus_width_bits && *spec->bus_width_bits > 0)
    g.memory_clock_khz = static_cast<int>(
        *spec->bandwidth_gbs * 1e9 / (2.0 * *spec->bus_width_bits / 8.0) / 1000.0 + 0.5);
  if (const ArchInfo* a = cat.arch(spec->cc.arch())) {
    g.smem_per_block_optin = static_cast<int>(a->smem_per_block_optin.value_or(0));
    g.smem_per_sm = static_cast<int>(a->smem_per_sm.value_or(0));
    g.reserved_smem_per_block = static_cast<int>(a->reserved_smem_per_block);
    g.threads_per_sm = static_cast<int>(a->threads_per_sm.value_or(0));
    g.blocks_per_sm = static_cast<int>(a->blocks_per_sm.value_or(0));
    g.regs_per_sm = static_cast<int>(a->regs_per_sm);
    g.regs_per_block = static_cast<int>(a->regs_per_block);
  }
  g.cluster_launch = spec->cc.major >= 9;
  g.bandwidth_gbs = spec->bandwidth_gbs.value_or(0.0);
  g.nvlink_gbs = spec->nvlink_gbs.value_or(0.0);
  return g;
}

// CUDA_VISIBLE_DEVICES as the driver reads it: a comma-separated list of indices or UUID
// prefixes; the list ends at the first entry that is invalid, out of range or repeated, so ""
// and "-1" hide every device.
std::vector<FakeGpu> apply_visible_devices(const std::vector<FakeGpu>& all) {
  const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!cvd) return all;
  std::vector<FakeGpu> out;
  std::set<int> seen;
  for (const std::string& entry : split(cvd, ',')) {
    int pick = -1;
    int idx = 0;
    if (parse_int(entry, idx)) {
      if (idx >= 0 && idx < static_cast<int>(all.size())) pick = idx;
    } else if (entry.rfind("GPU-", 0) == 0) {
      int matches = 0;
      for (const auto& g : all)
        if (g.uuid.rfind(entry, 0) == 0) {
          pick = g.physical_index;
          ++matches;
        }
      if (matches != 1) pick = -1;
    }
    if (pick < 0 || !seen.insert(pick).second) break;
    out.push_back(all[pick]);
  }
  return out;
}

bool parse_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !(v >= 0) || v > 1e12) return false;
  out = v;
  return true;
}

bool parse_u64(const std::string& s, unsigned long long& out) {
  if (s.empty() || s[0] == '-') return false;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);  // decimal or 0x hex
  if (*end != '\0') return false;
  out = v;
  return true;
}

// The timing-model and fault-injection variables (README.md, "Timing model").
void load_timing(FakeState& st) {
  auto positive = [&](const char* name, double fallback, double& out) {
    std::string v = env_or(name, "");
    if (v.empty()) {
      out = fallback;
    } else if (!parse_double(v, out) || out <= 0) {
      st.errors.push_back(std::string(name) + " is not a positive number");
      out = fallback;
    }
  };
  positive("SMCOMPAT_FAKE_PCIE_GBS", 25.0, st.pcie_gbs);
  positive("SMCOMPAT_FAKE_PAGEABLE_GBS", 10.0, st.pageable_gbs);
  positive("SMCOMPAT_FAKE_KERNEL_US", 2.0, st.kernel_us);
  unsigned long long u = 0;
  if (std::string v = env_or("SMCOMPAT_FAKE_MAX_ALLOC", ""); !v.empty()) {
    if (parse_u64(v, u))
      st.max_alloc = u;
    else
      st.errors.push_back("SMCOMPAT_FAKE_MAX_ALLOC is not a byte count");
  }
  if (std::string v = env_or("SMCOMPAT_FAKE_THROTTLE", ""); !v.empty()) {
    if (parse_u64(v, u))
      st.throttle_reasons = u;
    else
      st.errors.push_back("SMCOMPAT_FAKE_THROTTLE is not a bit mask");
  }
  if (std::string v = env_or("SMCOMPAT_FAKE_TEMP_C", ""); !v.empty()) {
    if (parse_u64(v, u) && u < 200)
      st.temperature_c = static_cast<unsigned>(u);
    else
      st.errors.push_back("SMCOMPAT_FAKE_TEMP_C is not a temperature");
  }
  if (std::string v = env_or("SMCOMPAT_FAKE_POWER_W", ""); !v.empty()) {
    if (parse_u64(v, u) && u < 100000)
      st.power_mw = static_cast<unsigned>(u * 1000);
    else
      st.errors.push_back("SMCOMPAT_FAKE_POWER_W is not a whole number of watts");
  }
  std::string failing = env_or("SMCOMPAT_FAKE_FAIL_CALLS", "");
  if (!trim(failing).empty()) {
    for (const std::string& entry : split(failing, ',')) {
      std::string name = entry;
      int code = 0;
      if (auto eq = entry.find('='); eq != std::string::npos) {
        name = trim(entry.substr(0, eq));
        if (!parse_int(trim(entry.substr(eq + 1)), code) || code <= 0) {
          st.errors.push_back("SMCOMPAT_FAKE_FAIL_CALLS: \"" + entry + "\" has no CUresult");
          continue;
        }
      } else {
        // Allocations fail as a real driver does when memory runs out; anything else: unknown.
        code = (name.rfind("cuMemAlloc", 0) == 0 || name.rfind("cuMemHostAlloc", 0) == 0) ? 2 : 999;
      }
      st.failing_calls.emplace_back(name, code);
    }
  }
}

// "5x16" -> generation 5, width 16.
bool parse_link(const std::string& s, unsigned& gen, unsigned& width) {
  auto x = s.find('x');
  int g = 0, w = 0;
  if (x == std::string::npos || !parse_int(s.substr(0, x), g) || !parse_int(s.substr(x + 1), w) ||
      g <= 0 || w <= 0)
    return false;
  gen = static_cast<unsigned>(g);
  width = static_cast<unsigned>(w);
  return true;
}

// SMCOMPAT_FAKE_PCIE: one entry for every GPU, or one per GPU in SMCOMPAT_FAKE_GPUS order. An entry
// is "5x16" (current = max), "4x8/5x16" (current/max), "-" (NOT_SUPPORTED, as on an integrated GPU)
// or "error" (NVML_ERROR_UNKNOWN).
void load_pcie(FakeState& st) {
  std::string spec = trim(env_or("SMCOMPAT_FAKE_PCIE", ""));
  if (spec.empty()) return;
  std::vector<std::string> entries = split(spec, ',');
  if (entries.size() != 1 && entries.size() != st.all_gpus.size()) {
    st.errors.push_back("SMCOMPAT_FAKE_PCIE: give one link for every GPU or one per GPU");
    return;
  }
  for (size_t i = 0; i < st.all_gpus.size(); ++i) {
    const std::string& e = entries.size() == 1 ? entries[0] : entries[i];
    FakeGpu& g = st.all_gpus[i];
    if (e == "-") continue;  // stays NOT_SUPPORTED
    if (e == "error") {
      g.pcie_error = 999;  // NVML_ERROR_UNKNOWN
      continue;
    }
    auto slash = e.find('/');
    std::string cur = e.substr(0, slash);
    std::string max = slash == std::string::npos ? cur : e.substr(slash + 1);
    if (!parse_link(cur, g.pcie_gen_current, g.pcie_width_current) ||
        !parse_link(max, g.pcie_gen_max, g.pcie_width_max)) {
      st.errors.push_back("SMCOMPAT_FAKE_PCIE: \"" + e +
                          "\" is not a link such as 5x16 or 4x8/5x16");
      continue;
    }
    g.pcie_error = 0;
  }
}

FakeState load() {
  FakeState st;
  st.driver_version = env_or("SMCOMPAT_FAKE_DRIVER", "580.95.05");
  if (!parse_int(env_or("SMCOMPAT_FAKE_CUDA", "13000"), st.driver_cuda_version))
    st.errors.push_back("SMCOMPAT_FAKE_CUDA is not an integer such as 13000");
  st.p2p = env_or("SMCOMPAT_FAKE_P2P", "1") != "0";
  if (!parse_int(env_or("SMCOMPAT_FAKE_NVLINK", "0"), st.nvlink_per_pair) || st.nvlink_per_pair < 0)
    st.errors.push_back("SMCOMPAT_FAKE_NVLINK is not a count of links per GPU pair");
  if (!parse_int(env_or("SMCOMPAT_FAKE_INIT_ERROR", "0"), st.init_error))
    st.errors.push_back("SMCOMPAT_FAKE_INIT_ERROR is not a CUresult number");
  if (!parse_int(env_or("SMCOMPAT_FAKE_NVML_INIT_ERROR", "0"), st.nvml_init_error))
    st.errors.push_back("SMCOMPAT_FAKE_NVML_INIT_ERROR is not an nvmlReturn_t number");
  std::string failing = env_or("SMCOMPAT_FAKE_FAIL_ATTRIBUTES", "");
  if (!trim(failing).empty()) {
    for (const std::string& a : split(failing, ',')) {
      int v = 0;
      if (parse_int(a, v))
        st.failing_attributes.push_back(v);
      else
        st.errors.push_back("SMCOMPAT_FAKE_FAIL_ATTRIBUTES: \"" + a + "\" is not a number");
    }
  }
  std::string gpus = env_or("SMCOMPAT_FAKE_GPUS", "");
  if (!trim(gpus).empty()) {
    int index = 0;
    for (const std::string& name : split(gpus, ',')) {
      if (auto g = make_gpu(name, index, st)) {
        st.all_gpus.push_back(*g);
        ++index;
      }
    }
  }
  std::string masq = env_or("SMCOMPAT_FAKE_MASQUERADE", "");
  if (!masq.empty()) {
    auto cc = ComputeCapability::parse(masq);
    if (!cc) {
      st.errors.push_back("SMCOMPAT_FAKE_MASQUERADE is not a compute capability such as 9.0");
    } else {
      for (auto& g : st.all_gpus) {
        g.reported_cc_major = cc->major;
        g.reported_cc_minor = cc->minor;
      }
    }
  }
  load_pcie(st);
  st.gpus = apply_visible_devices(st.all_gpus);
  load_timing(st);
  for (const auto& e : st.errors) std::fprintf(stderr, "smcompat fake driver: %s\n", e.c_str());
  return st;
}

}  // namespace

const FakeState& state() {
  static const FakeState s = load();  // thread-safe initialisation (C++11 magic statics)
  return s;
}

int nvlink_count(const FakeState& s, int a) {
  int n = static_cast<int>(s.all_gpus.size());
  if (a < 0 || a >= n || n < 2) return 0;
  int count = s.nvlink_per_pair * (n - 1);
  return count > 36 ? 36 : count;  // NVML_NVLINK_MAX_LINKS
}

int nvlink_peer(const FakeState& s, int a, int link) {
  if (link < 0 || link >= nvlink_count(s, a) || s.nvlink_per_pair <= 0) return -1;
  int k = link / s.nvlink_per_pair;  // k-th other GPU in index order
  return k < a ? k : k + 1;
}

int nvlink_links(const FakeState& s, int a, int b) {
  int links = 0;
  for (int l = 0; l < nvlink_count(s, a); ++l)
    if (nvlink_peer(s, a, l) == b) ++links;
  return links;
}

}  // namespace smcompat::fake
