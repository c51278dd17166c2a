// This machine: the name a report is tagged with (so that `fleet merge` knows which node it came
// from) and its architecture.
#pragma once

#include <string>

namespace smcompat {

/// $SMCOMPAT_HOSTNAME when set and not empty (in a Kubernetes pod the hostname is the pod's name,
/// so a DaemonSet passes the node's name through the downward API), else gethostname(), else "".
std::string host_name();

/// This machine's architecture as uname(2) says it ("x86_64", "aarch64"): the wheels pip would
/// install here, and the platform_machine of requirement markers. "x86_64" if uname fails.
std::string host_machine();

}  // namespace smcompat
