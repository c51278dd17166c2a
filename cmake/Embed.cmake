# Compiles a data file into the library as a byte array, so the binary needs no data files at run
# time. The generated .cpp defines `extern const unsigned char NAME[]` and `NAME_size`.
function(smcompat_embed target input symbol)
  get_filename_component(abs_input "${input}" ABSOLUTE)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded/${symbol}.cpp")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${abs_input}")
  file(READ "${abs_input}" hex HEX)
  string(LENGTH "${hex}" hex_len)
  math(EXPR byte_count "${hex_len} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){32})" "\\1\n" bytes "${bytes}")
  file(WRITE "${out}.tmp"
    "// Generated from ${input} by cmake/Embed.cmake. Do not edit.\n#include <cstddef>\n"
    "namespace smcompat::embedded {\nextern const unsigned char ${symbol}[] = {\n${bytes}0x00};\n"
    "extern const std::size_t ${symbol}_size = ${byte_count};\n}\n")
  file(COPY_FILE "${out}.tmp" "${out}" ONLY_IF_DIFFERENT)
  target_sources(${target} PRIVATE "${out}")
endfunction()
