// The name a report is tagged with, so that `fleet merge` knows which node it came from.
#pragma once

#include <string>

namespace smcompat {

/// $SMCOMPAT_HOSTNAME when set and not empty (in a Kubernetes pod the hostname is the pod's name,
/// so a DaemonSet passes the node's name through the downward API), else gethostname(), else "".
std::string host_name();

}  // namespace smcompat
