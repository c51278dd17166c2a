// The fleet's findings from the merged nodes and images (src/fleet/findings.cpp), for
// merge_reports() (fleet.cpp). Module-internal.
#pragma once

#include <string>
#include <vector>

#include "smcompat/fleet/fleet.hpp"

namespace smcompat::fleet {

/// Appends one finding: a doctor Finding (subject the image, else "fleet") with its hosts.
void add_finding(std::vector<FleetFinding>& out, doctor::Severity severity, std::string id,
                 std::string title, std::vector<std::string> evidence, std::string fix,
                 std::vector<std::string> hosts, std::string image = {});

/// Findings about the nodes: unreadable reports, drivers that did not answer, mixed drivers,
/// missing P2P, duplicate reports.
void node_findings(const FleetReport& r, const MergeOptions& o, std::vector<FleetFinding>& out);
/// Findings about the images on the node classes: no code, JIT, a CUDA runtime newer than a
/// driver.
void image_findings(const FleetReport& r, const MergeOptions& o, std::vector<FleetFinding>& out);

}  // namespace smcompat::fleet
