// `smcompat` with no arguments: the doctor with default settings (doctor.cpp).
#include "commands.hpp"
#include "doctor_cli.hpp"

namespace smcompat::cli {

int run_default(Context& ctx) {
  DoctorCliOptions options;
  return run_doctor_cli(ctx, options);
}

}  // namespace smcompat::cli
