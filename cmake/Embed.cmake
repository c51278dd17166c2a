# Compiles a data file into the library as a byte array, so the binary needs no data files at run
# time. The generated .cpp defines `smcompat::embedded::NAME[]` and `NAME_size`
# (include/smcompat/util/embedded.hpp declares and reads them).
include(${CMAKE_CURRENT_LIST_DIR}/EmbedWrite.cmake)

function(smcompat_embed target input symbol)
  get_filename_component(abs_input "${input}" ABSOLUTE)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded/${symbol}.cpp")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${abs_input}")
  smcompat_write_embedded("${abs_input}" "${out}" "${symbol}")
  target_sources(${target} PRIVATE "${out}")
endfunction()
