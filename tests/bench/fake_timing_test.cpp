// The fake driver's memory, stream, event, graph and peer entry points (tests/fakedriver/
// fake_timing.cpp) through CudaSession and, where the session hides a code, the raw entry point:
// the timing model's arithmetic, event completion, allocation tracking and fault injection.
#include <dlfcn.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fake_run.hpp"
#include "smcompat/bench/cuda_session.hpp"
#include "smcompat/probe/driver_abi.hpp"

namespace smcompat::bench {
namespace {

using test::in_child;

// Opens a session on the fake and runs `body` on it in a child; returns its text or the error.
std::string with_session(const std::map<std::string, std::string>& env,
                         const std::function<std::string(CudaSession&)>& body) {
  return in_child(env, [&]() -> std::string {
    SessionOptions so;
    so.libcuda = test::kFakeCuda;
    auto s = CudaSession::open(so);
    if (!s) return "open failed: " + s.error().what;
    if (auto r = (*s)->use_device(0); !r) return r.error().what;
    return body(**s);
  });
}

std::string text_of(const Result<void>& r) { return r ? "ok" : r.error().what; }

TEST(FakeTiming, EventsTimeACopyAndCompleteOnSynchronize) {
  std::string out = with_session({{"SMCOMPAT_FAKE_GPUS", "A100"}}, [](CudaSession& s) {
    auto a = s.device_buffer(1 << 30);
    auto b = s.device_buffer(1 << 30);
    auto start = s.create_event();
    auto stop = s.create_event();
    auto stream = s.create_stream();
    if (!a || !b || !start || !stop || !stream) return std::string("setup failed");
    std::string t;
    t += text_of(s.record(start->get(), stream->get())) + ";";
    t += text_of(s.copy_dtod(b->get(), a->get(), 1 << 30, stream->get())) + ";";
    t += text_of(s.record(stop->get(), stream->get())) + ";";
    auto early = s.elapsed_ms(start->get(), stop->get());
    t += (early ? "early ok" : early.error().what) + ";";
    t += text_of(s.synchronize_event(stop->get())) + ";";
    auto ms = s.elapsed_ms(start->get(), stop->get());
    t += ms ? fmt::format("{:.6f}", *ms) : ms.error().what;
    return t;
  });
  // 2 x 1 GiB at the catalog bandwidth of the A100, in ms (float, as the driver returns it).
  const GpuSpec* a100 = Catalog::builtin().find_gpu("A100");
  ASSERT_TRUE(a100 && a100->bandwidth_gbs);
  std::string expected_ms = fmt::format(
      "{:.6f}", static_cast<float>(2.0 * (1 << 30) / (*a100->bandwidth_gbs * 1e9) * 1e3));
  EXPECT_EQ(out, "ok;ok;ok;cuEventElapsedTime failed: CUDA_ERROR_NOT_READY;ok;" + expected_ms);
}

TEST(FakeTiming, AllocationsAreTrackedAndBounded) {
  std::string out = with_session({{"SMCOMPAT_FAKE_GPUS", "RTX 5090"}}, [](CudaSession& s) {
    std::string t;
    auto too_big = s.alloc_device(33ull << 30);  // the GPU has 32 GiB
    t += (too_big ? "big ok" : too_big.error().what) + ";";
    auto p = s.alloc_device(4096);
    if (!p) return p.error().what;
    t += text_of(s.copy_dtod(*p + 2048, *p, 2048, nullptr)) + ";";
    t += text_of(s.copy_dtod(*p + 2048, *p, 4096, nullptr)) + ";";  // runs past the end
    t += text_of(s.free_device(*p + 16)) + ";";                     // not an allocation
    t += text_of(s.free_device(*p)) + ";";
    t += text_of(s.free_device(*p));
    return t;
  });
  EXPECT_EQ(out,
            "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY;ok;"
            "cuMemcpyDtoDAsync_v2 failed: CUDA_ERROR_INVALID_VALUE;"
            "cuMemFree_v2 failed: CUDA_ERROR_INVALID_VALUE;ok;"
            "cuMemFree_v2 failed: CUDA_ERROR_INVALID_VALUE");
}

TEST(FakeTiming, FaultInjectionDefaultsAndExplicitCodes) {
  std::string out = with_session(
      {{"SMCOMPAT_FAKE_GPUS", "H100"},
       {"SMCOMPAT_FAKE_FAIL_CALLS", "cuMemAlloc_v2, cuStreamCreate=700, cuMemHostAlloc"}},
      [](CudaSession& s) {
        auto a = s.alloc_device(16);
        auto st = s.create_stream();
        auto h = s.alloc_pinned(16);
        return (a ? "ok" : a.error().what) + ";" + (st ? "ok" : st.error().what) + ";" +
               (h ? "ok" : h.error().what);
      });
  EXPECT_EQ(out,
            "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY;cuStreamCreate failed: CUresult 700;"
            "cuMemHostAlloc failed: CUDA_ERROR_OUT_OF_MEMORY");
}

TEST(FakeTiming, PeerAccessAndCapture) {
  auto body = [](CudaSession& s) {
    std::string t = text_of(s.enable_peer_access(0, 1)) + ";";
    t += text_of(s.enable_peer_access(0, 1)) + ";";  // already enabled: success
    // The raw entry point tells "already enabled" apart.
    void* h = dlopen(test::kFakeCuda.c_str(), RTLD_NOW | RTLD_NOLOAD);
    auto enable = reinterpret_cast<driver::PFN_cuCtxEnablePeerAccess_v4000>(
        h ? dlsym(h, "cuCtxEnablePeerAccess") : nullptr);
    auto retain = reinterpret_cast<driver::PFN_cuDevicePrimaryCtxRetain_v7000>(
        h ? dlsym(h, "cuDevicePrimaryCtxRetain") : nullptr);
    driver::CUcontext peer = nullptr;
    if (enable && retain && retain(&peer, 1) == 0) t += std::to_string(enable(peer, 0)) + ";";
    t += text_of(s.begin_capture(nullptr));  // the legacy stream cannot be captured
    return t;
  };
  EXPECT_EQ(with_session({{"SMCOMPAT_FAKE_GPUS", "H100,H100"}}, body),
            "ok;ok;704;cuStreamBeginCapture_v2 failed: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
  std::string off =
      with_session({{"SMCOMPAT_FAKE_GPUS", "H100,H100"}, {"SMCOMPAT_FAKE_P2P", "0"}},
                   [](CudaSession& s) { return text_of(s.enable_peer_access(0, 1)); });
  EXPECT_EQ(off, "cuCtxEnablePeerAccess(0 -> 1) failed: CUDA_ERROR_PEER_ACCESS_UNSUPPORTED");
}

TEST(FakeTiming, BadConfigurationIsReported) {
  std::string out = with_session({{"SMCOMPAT_FAKE_GPUS", "H100"}, {"SMCOMPAT_FAKE_PCIE_GBS", "-3"}},
                                 [](CudaSession&) { return std::string("opened"); });
  EXPECT_EQ(out, "open failed: cuInit failed: CUDA_ERROR_UNKNOWN");
}

}  // namespace
}  // namespace smcompat::bench
