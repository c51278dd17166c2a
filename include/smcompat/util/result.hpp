// Errors as values: every parser returns Result<T> carrying either a value or an Error that says
// what went wrong and where (file + byte offset). See ../shared/design/style.md, "Untrusted input".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace smcompat {

/// What went wrong, and where in which input.
struct Error {
  std::string what;                ///< human-readable reason, quoting the raw values involved
  std::string file;                ///< path of the input, empty until a caller knows it
  std::optional<uint64_t> offset;  ///< byte offset in `file` where the problem was found

  /// "file: offset 0x1a2b: what" (parts that are unknown are left out).
  [[nodiscard]] std::string to_string() const;
  /// Fills in the file name if not yet known; returns *this for chaining.
  Error& in_file(const std::string& path) {
    if (file.empty()) file = path;
    return *this;
  }
};

Error make_error(std::string what, std::optional<uint64_t> offset = std::nullopt);

/// An expected-like type: a T or an Error. [[nodiscard]] so that failures are not ignored.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(implicit)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(implicit)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

  template <class U>
  T value_or(U&& fallback) const& {
    return ok() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}  // NOLINT(implicit)
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const& { return *error_; }
  Error&& error() && { return std::move(*error_); }

 private:
  std::optional<Error> error_;
};

}  // namespace smcompat

#define SMCOMPAT_CONCAT_INNER_(a, b) a##b
#define SMCOMPAT_CONCAT_(a, b) SMCOMPAT_CONCAT_INNER_(a, b)

/// SMCOMPAT_TRY(auto x, expr): evaluates expr (a Result); on error returns the error from the
/// enclosing function, otherwise binds the value to the declaration.
#define SMCOMPAT_TRY(decl, expr)                                         \
  auto SMCOMPAT_CONCAT_(smcompat_try_, __LINE__) = (expr);               \
  if (!SMCOMPAT_CONCAT_(smcompat_try_, __LINE__))                        \
    return std::move(SMCOMPAT_CONCAT_(smcompat_try_, __LINE__)).error(); \
  decl = std::move(*SMCOMPAT_CONCAT_(smcompat_try_, __LINE__))

/// SMCOMPAT_CHECK(expr): for Result<void> (or any Result whose value is not needed).
#define SMCOMPAT_CHECK(expr)                                             \
  do {                                                                   \
    auto smcompat_check_r_ = (expr);                                     \
    if (!smcompat_check_r_) return std::move(smcompat_check_r_).error(); \
  } while (0)
