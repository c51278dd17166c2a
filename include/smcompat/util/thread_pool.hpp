// A minimal parallel-for: the scanner decodes entries and files on all cores.
#pragma once

#include <cstddef>
#include <functional>

namespace smcompat {

/// Number of worker threads to use by default (hardware concurrency, at least 1).
unsigned default_jobs();

/// Calls fn(i) for every i in [0, n) on up to `jobs` threads; returns when all calls are done.
/// fn must not throw (exceptions are caught and dropped so a worker never terminates the process).
void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& fn);

}  // namespace smcompat
