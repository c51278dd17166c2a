# Build-time half of the bench kernel embedding (src/bench/CMakeLists.txt): turns one nvcc output
# (cubin or PTX) into a .cpp defining `smcompat::embedded::SYMBOL[]` and `SYMBOL_size` with the
# one writer of cmake/EmbedWrite.cmake; these inputs exist only after nvcc ran.
# Usage: cmake -DINPUT=... -DOUTPUT=... -DSYMBOL=... -P embed.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../../../cmake/EmbedWrite.cmake)
smcompat_write_embedded("${INPUT}" "${OUTPUT}" "${SYMBOL}")
# Newer than its inputs even when the text did not change, so the build step is not rerun.
file(TOUCH "${OUTPUT}")
