// libFuzzer target for `ptx lower`, checked by the reference interpreter: bytes choose a wgmma
// form and both descriptors' layouts (fuzz/ptx_lower_case.hpp), and the same bytes a tcgen05.mma
// form (fuzz/ptx_lower_tcgen05_case.hpp); each original kernel and its mma.sync lowering must
// compute bit-identical results. A difference, or an error from the
// lowering or the interpreter on a valid case, aborts. Also lowers the bytes as PTX text, which
// must give a module, a located error or a refusal, never a crash.
#include <cstdio>
#include <cstdlib>

#include "ptx_lower_case.hpp"
#include "ptx_lower_tcgen05_case.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace smcompat::ptx;
  if (auto c = lower_case::decode(data, size)) {
    const lower_case::Outcome o = lower_case::run(*c);
    if (!o.error.empty() || o.differ != 0 || o.words == 0) {
      std::fprintf(stderr, "ptx lower case failed: %s; %zu of %zu words differ\n%s\n",
                   o.error.c_str(), o.differ, o.words, o.original.c_str());
      std::abort();
    }
  }
  if (auto f = tcgen05_case::decode(data, size)) {
    const tcgen05_case::Outcome o = tcgen05_case::run(*f);
    if (!o.error.empty() || o.differ != 0 || o.written == 0) {
      std::fprintf(stderr, "tcgen05 lower case failed: %s; %llu of %llu bytes differ\n%s\n",
                   o.error.c_str(), static_cast<unsigned long long>(o.differ),
                   static_cast<unsigned long long>(o.compared), tcgen05_case::describe(*f).c_str());
      std::abort();
    }
  }
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = lower(text, *smcompat::SmTarget::parse("sm_120"));
  if (r.ok() && r->ok && !parse_module(r->text).ok()) std::abort();
  return 0;
}
