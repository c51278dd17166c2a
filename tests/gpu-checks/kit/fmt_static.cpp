// fmt, compiled into the GPU kit's binaries from Debian's own fmt headers. Debian ships fmt only
// as libfmt.so, which needs the system's libstdc++.so.6, and Debian 12's libstdc++ needs glibc
// 2.36 (arc4random); the kit must run on glibc 2.34. This is what fmt's own src/format.cc builds:
// the out-of-line definitions (format-inl.h) and the explicit instantiations format.h declares
// `extern template`. The link fails if one is missing, so nothing can go wrong silently.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view,
                                 basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);
}  // namespace detail
FMT_END_NAMESPACE
