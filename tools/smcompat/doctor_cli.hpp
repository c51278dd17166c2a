// Options of `smcompat doctor`, shared with `smcompat` without arguments (default.cpp).
#pragma once

#include <string>
#include <vector>

#include "commands.hpp"

namespace smcompat::cli {

struct DoctorCliOptions {
  std::vector<std::string> gpus;
  std::vector<std::string> pythons;
  bool json = false;
  bool markdown = false;
  std::string fix_script;
  std::string fail_on = "error";
  bool no_scan = false;
  bool no_active = false;
  std::string proc_root;
};

int run_doctor_cli(Context& ctx, const DoctorCliOptions& options);

}  // namespace smcompat::cli
