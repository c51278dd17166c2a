// The probe report as JSON, schema "smcompat.probe/1" (docs/probe.md documents every field).
// Everything here is observed from the driver except `bandwidth_gbs` (derived, marked so) and the
// `arch` block (from the catalog, data/catalog.json).
#include <nlohmann/json.hpp>

#include "smcompat/probe/probe.hpp"

namespace smcompat {

namespace {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  if (v) return *v;
  return nullptr;
}

template <class T>
nlohmann::json matrix(const std::vector<std::vector<std::optional<T>>>& m) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : m) {
    nlohmann::json r = nlohmann::json::array();
    for (const auto& cell : row) r.push_back(opt(cell));
    out.push_back(r);
  }
  return out;
}

nlohmann::json device_json(const ProbeDevice& d) {
  nlohmann::json bw = nullptr;
  if (d.bandwidth_gbs)
    bw = {{"value", *d.bandwidth_gbs},
          {"derived", true},
          {"formula", "2 * memory_clock_khz * 1000 * bus_width_bits / 8 / 1e9"}};
  return {
      {"ordinal", d.ordinal},
      {"name", d.name},
      {"uuid", d.uuid},
      {"pci_bus_id", d.pci_bus_id},
      {"cc", d.cc.to_string()},
      {"nvml_cc", d.nvml_cc ? nlohmann::json(d.nvml_cc->to_string()) : nlohmann::json(nullptr)},
      {"nvml_index", opt(d.nvml_index)},
      {"masquerade", d.masquerade},
      {"sms", d.sms},
      {"memory_bytes", d.total_memory},
      {"smem_per_block", d.smem_per_block},
      {"smem_per_block_optin", d.smem_per_block_optin},
      {"smem_per_sm", d.smem_per_sm},
      {"reserved_smem_per_block", d.reserved_smem_per_block},
      {"l2_bytes", d.l2_bytes},
      {"clock_khz", d.clock_khz},
      {"memory_clock_khz", d.memory_clock_khz},
      {"bus_width_bits", d.bus_width_bits},
      {"bandwidth_gbs", bw},
      {"threads_per_sm", d.threads_per_sm},
      {"regs_per_sm", d.regs_per_sm},
      {"blocks_per_sm", d.blocks_per_sm},
      {"cluster_launch", d.cluster_launch},
      {"arch",
       {{"sm", "sm_" + std::to_string(d.nvml_cc.value_or(d.cc).arch())},
        {"name", d.arch_name},
        {"features", d.features},
        {"a_features", d.a_features},
        {"f_features", d.f_features},
        {"source", "catalog"}}},
      {"catalog_gpu", opt(d.catalog_gpu)},
      {"nvlink", {{"active_links", d.nvlink_links}, {"links_to_other", d.nvlink_links_to_other}}},
      {"warnings", d.warnings},
  };
}

}  // namespace

nlohmann::json to_json(const ProbeReport& r) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : r.devices) devices.push_back(device_json(d));
  return {
      {"schema", "smcompat.probe/1"},
      {"observed", true},
      {"status", to_string(r.status)},
      {"explanation", r.explanation},
      {"cuda_error", opt(r.cuda_error)},
      {"libcuda",
       {{"requested", r.libcuda_requested},
        {"path", r.libcuda_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.libcuda_path)},
        {"resolved_via",
         r.resolved_via.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.resolved_via)}}},
      {"nvml",
       {{"loaded", r.nvml_loaded},
        {"path", r.nvml_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.nvml_path)},
        {"error", r.nvml_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.nvml_error)},
        {"device_count", opt(r.nvml_device_count)}}},
      {"driver_version", opt(r.driver_version)},
      {"driver_version_source",
       r.driver_version ? nlohmann::json(r.driver_version_source) : nlohmann::json(nullptr)},
      {"cuda_driver_version", opt(r.cuda_driver_version)},
      {"nvml_cuda_driver_version", opt(r.nvml_cuda_driver_version)},
      {"kernel_module", to_string(r.kernel_module)},
      {"kernel_module_line", r.kernel_module_line.empty() ? nlohmann::json(nullptr)
                                                          : nlohmann::json(r.kernel_module_line)},
      {"cuda_visible_devices", opt(r.cuda_visible_devices)},
      {"devices", devices},
      {"topology",
       {{"p2p_access", matrix(r.topology.p2p_access)},
        {"native_atomics", matrix(r.topology.native_atomics)},
        {"nvlink_links", matrix(r.topology.nvlink_links)},
        {"pcie_common_ancestor", matrix(r.topology.pcie_common_ancestor)}}},
      {"warnings", r.warnings},
  };
}

}  // namespace smcompat
