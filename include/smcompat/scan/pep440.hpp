// PEP 440 versions: the one ordering of Python package versions in smcompat.
#pragma once

#include <string_view>

namespace smcompat {

/// PEP 440 ordering for the versions PyPI serves: epoch, release segments (2.9 == 2.9.0),
/// pre-releases (a < b < rc < final; a bare .devN before them), .postN after the release, local
/// labels (+cu128) after the same public version; negative when a < b.
int compare_versions(std::string_view a, std::string_view b);

/// The public version without its local label ("2.8.0+cu128" -> "2.8.0").
std::string_view without_local(std::string_view version);

/// The same public version whatever the local labels ("2.9.0+cu128" and "2.9" are).
bool same_public_version(std::string_view a, std::string_view b);

}  // namespace smcompat
