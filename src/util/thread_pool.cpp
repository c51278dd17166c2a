// parallel_for over a shared atomic counter (include/smcompat/util/thread_pool.hpp).
#include "smcompat/util/thread_pool.hpp"

#include <atomic>
#include <thread>
#include <vector>

namespace smcompat {

unsigned default_jobs() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  if (jobs == 0) jobs = default_jobs();
  if (jobs > n) jobs = static_cast<unsigned>(n);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
      try {
        fn(i);
      } catch (...) {
        // A worker must never take the process down; callers record their own errors.
      }
    }
  };
  if (jobs == 1) {
    worker();
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(jobs - 1);
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
}

}  // namespace smcompat
