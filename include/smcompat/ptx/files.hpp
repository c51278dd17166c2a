// The PTX of files, parsed: what `smcompat ptx check` and `ptx budget` walk (every text of every
// file, embedded ones included), and the one text `ptx retarget` takes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "smcompat/ptx/module.hpp"
#include "smcompat/ptx/sources.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::ptx {

/// What visit_ptx_texts() hands over, in file order. Each callback may be empty.
struct PtxTextVisitor {
  std::function<void(const PtxSource&, const Module&)> module;             ///< a text that parsed
  std::function<void(const PtxSource&, const Error&)> parse_error;         ///< a text that did not
  std::function<void(const std::string& file, const Error&)> image_error;  ///< one image failed
  std::function<void(const std::string& file, const Error&)> file_error;   ///< the file failed
};

/// Every PTX text of `files` (for_each_ptx), parsed; returns how many texts were found.
size_t visit_ptx_texts(const std::vector<std::string>& files, const PtxTextVisitor& visit);

/// The PTX text of a file holding exactly one (a .ptx file): an error naming how many it holds
/// otherwise ("extract an image first").
Result<std::string> read_single_ptx(const std::string& path);

}  // namespace smcompat::ptx
