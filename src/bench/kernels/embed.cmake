# Build-time half of the bench kernel embedding (src/bench/CMakeLists.txt): turns one nvcc output
# (cubin or PTX) into a .cpp defining `smcompat::embedded::SYMBOL[]` (followed by a NUL, so PTX
# text is NUL-terminated as cuModuleLoadData wants) and `SYMBOL_size` (without the NUL).
# cmake/Embed.cmake does the same at configure time; these inputs exist only after nvcc ran.
# Usage: cmake -DINPUT=... -DOUTPUT=... -DSYMBOL=... -P embed.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR byte_count "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){32})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by src/bench/kernels/embed.cmake. Do not edit.\n#include <cstddef>\n"
  "namespace smcompat::embedded {\nextern const unsigned char ${SYMBOL}[] = {\n${bytes}0x00};\n"
  "extern const std::size_t ${SYMBOL}_size = ${byte_count};\n}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
