// Fleets: one view of many machines, from the reports each node wrote (`probe`, `doctor` and
// `scan` JSON documents, any mix, one file each, tagged with their host). What only a fleet shows:
// a GPU model running several drivers, nodes whose driver is older than the CUDA runtime a scanned
// image carries, images with no code (or only PTX) for some of the fleet's GPUs, multi-GPU nodes
// without peer access. Verdicts are predictions: each scanned file is re-judged by the verdict
// rules for every class of node (GPU model, architecture, driver CUDA version) in the fleet.
//
// Memory stays bounded by one report plus small per-node summaries: node reports are read first
// and reduced to a Node each; scan reports are then read one at a time, judged against the node
// classes and dropped, keeping only their results.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/doctor/doctor.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/verdict/fit.hpp"

namespace smcompat::fleet {

/// One GPU of a node, as its probe (or doctor) report says.
struct NodeGpu {
  std::string model;  ///< catalog name ("H100 SXM"), else the driver's name
  std::string cc;     ///< the architecture the driver loads code for ("9.0")
  uint64_t memory_bytes = 0;
};

/// What one node's reports say, reduced to what the fleet view needs.
struct Node {
  std::string host;
  bool host_from_file_name = false;    ///< no `hostname` in its reports: named by the file
  std::vector<std::string> reports;    ///< the report files read for it, in order
  std::string driver_state;            ///< probe `status` / doctor `driver.state` ("ok", ...)
  std::string driver_detail;           ///< the probe's explanation when not ok
  std::string driver_version;          ///< "580.95.05", or ""
  std::optional<Version> driver_cuda;  ///< the CUDA version the driver supports
  std::vector<NodeGpu> gpus;
  bool topology_known = false;  ///< a probe report with a P2P matrix was read
  size_t gpu_pairs = 0;         ///< unordered pairs of GPUs
  size_t p2p_pairs = 0;         ///< pairs with peer access both ways
  size_t nvlink_pairs = 0;      ///< pairs with NVLink links
  bool doctor_known = false;
  std::vector<doctor::Finding> doctor_findings;  ///< severity, id and title only
  std::vector<Error> errors;                     ///< its reports that could not be read
};

/// One scanned image (or environment, wheel, directory) judged for one class of nodes.
struct ImageOnClass {
  std::string model;
  std::string cc;
  std::optional<Version> driver_cuda;
  std::vector<std::string> hosts;  ///< nodes of this class (a node with two models is in both)
  Fit verdict = Fit::kNative;      ///< the worst verdict among the image's files with device code
  std::array<size_t, kVerdictFitCount> files{};  ///< files per verdict
  /// Files that cannot run here (no-image, unsupported-ptx), by name; at most kNamedFiles.
  std::vector<std::string> failing_files;
  std::vector<std::string> jit_files;  ///< files that JIT here; at most kNamedFiles
  /// The image's CUDA runtime needs a newer driver than this class has (runtime major above the
  /// driver's CUDA major): the highest such major.
  std::optional<int> runtime_too_new;
};
inline constexpr size_t kNamedFiles = 10;

/// A scan report, judged.
struct Image {
  std::string name;        ///< the image reference, else the scanned path(s)
  std::string report;      ///< the file it came from
  std::string scanned_on;  ///< the host that scanned it ("" if unknown)
  size_t files_with_code = 0;
  std::vector<std::string> cuda_runtimes;  ///< "12.8" or "12" (libcudart found in it)
  std::vector<ImageOnClass> classes;
  /// Hosts by how the image would run there (a host is counted once, by its worst class).
  std::vector<std::string> hosts_native, hosts_jit, hosts_failing;
};

/// GPUs of one model across the fleet.
struct ModelSummary {
  std::string model;
  std::string cc;
  size_t gpus = 0;
  size_t nodes = 0;
  /// driver version -> nodes, in version order
  std::vector<std::pair<std::string, size_t>> drivers;
};

/// Nodes by driver version.
struct DriverSummary {
  std::string driver_version;  ///< "" for nodes whose driver is not known
  std::optional<Version> driver_cuda;
  size_t nodes = 0;
  std::vector<std::string> models;
};

/// A fleet finding: a doctor-style finding plus the hosts (and image) it is about.
struct FleetFinding {
  doctor::Finding finding;
  std::vector<std::string> hosts;
  std::string image;  ///< for image findings
};

struct MergeOptions {
  /// How many hosts a finding's evidence line names before "... and N more" (JSON has them all).
  size_t hosts_named = 8;
};

struct FleetReport {
  std::vector<Node> nodes;  ///< by host name
  std::vector<ModelSummary> models;
  std::vector<DriverSummary> drivers;
  std::vector<Image> images;
  std::vector<FleetFinding> findings;  ///< most severe first
  size_t reports_read = 0;             ///< files given
  size_t reports_failed = 0;           ///< files that could not be read as a report
  size_t count(doctor::Severity s) const;
};

/// Host names in natural order: "node-2" before "node-10".
struct HostOrder {
  bool operator()(const std::string& a, const std::string& b) const;
};

/// The kind of report a document is, by its `schema`: "probe", "doctor", "scan", or an error
/// naming the schema when it is none of smcompat.probe/1, smcompat.doctor/1, smcompat.scan/1|2.
Result<std::string> report_kind(const std::string& schema);

/// Merges report files. Never fails as a whole: a file that is not a readable report becomes an
/// error of the node named by its file name (and a `report-unreadable` finding).
FleetReport merge_reports(const std::vector<std::string>& files, const MergeOptions& options = {});

}  // namespace smcompat::fleet
