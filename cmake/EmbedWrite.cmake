# Writes OUTPUT, a .cpp defining `smcompat::embedded::SYMBOL[]` (the bytes of INPUT followed by a
# NUL, so that text such as PTX is NUL-terminated) and `SYMBOL_size` (without the NUL), replacing
# the file only when its text changes. One writer for the data compiled in at configure time
# (cmake/Embed.cmake) and for nvcc's outputs embedded at build time (src/bench/kernels/embed.cmake).
function(smcompat_write_embedded input output symbol)
  file(READ "${input}" hex HEX)
  string(LENGTH "${hex}" hex_len)
  math(EXPR byte_count "${hex_len} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){32})" "\\1\n" bytes "${bytes}")
  file(WRITE "${output}.tmp"
    "// Generated from ${input} by cmake/EmbedWrite.cmake. Do not edit.\n#include <cstddef>\n"
    "namespace smcompat::embedded {\nextern const unsigned char ${symbol}[] = {\n${bytes}0x00};\n"
    "extern const std::size_t ${symbol}_size = ${byte_count};\n}\n")
  file(COPY_FILE "${output}.tmp" "${output}" ONLY_IF_DIFFERENT)
  file(REMOVE "${output}.tmp")
endfunction()
