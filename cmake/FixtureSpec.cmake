# nvcc fixtures are listed as "NAME|nvcc flags" strings (tests/verdict, doctor, scan, gpu-checks).
# smcompat_split_fixture_spec(SPEC NAME_VAR FLAGS_VAR): NAME, and the flags as a CMake list.
function(smcompat_split_fixture_spec spec name_var flags_var)
  string(FIND "${spec}" "|" bar)
  string(SUBSTRING "${spec}" 0 ${bar} name)
  math(EXPR after "${bar} + 1")
  string(SUBSTRING "${spec}" ${after} -1 flag_text)
  separate_arguments(flags UNIX_COMMAND "${flag_text}")
  set(${name_var} ${name} PARENT_SCOPE)
  set(${flags_var} ${flags} PARENT_SCOPE)
endfunction()

# smcompat_nvcc_fixtures(OUTPUTS_VAR DIR dir SOURCE file [SUFFIX .so] [FLAGS flags...]
#                        [COMMENT text] SPECS "NAME|nvcc flags"...): one nvcc command a spec,
# `nvcc FLAGS <spec flags> -o DIR/NAME<SUFFIX> SOURCE`, built when a target depends on the outputs
# (their paths are appended to OUTPUTS_VAR). The caller checks SMCOMPAT_NVCC first.
function(smcompat_nvcc_fixtures outputs_var)
  cmake_parse_arguments(F "" "DIR;SOURCE;SUFFIX;COMMENT" "FLAGS;SPECS" ${ARGN})
  set(outputs ${${outputs_var}})
  foreach(spec ${F_SPECS})
    smcompat_split_fixture_spec("${spec}" name flags)
    set(out ${F_DIR}/${name}${F_SUFFIX})
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${F_DIR}
      COMMAND ${SMCOMPAT_NVCC} ${F_FLAGS} ${flags} -o ${out} ${F_SOURCE}
      DEPENDS ${F_SOURCE}
      COMMENT "nvcc ${F_COMMENT} ${name}${F_SUFFIX}"
      VERBATIM)
    list(APPEND outputs ${out})
  endforeach()
  set(${outputs_var} ${outputs} PARENT_SCOPE)
endfunction()
