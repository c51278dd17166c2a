# nvcc fixtures are listed as "NAME|nvcc flags" strings (tests/verdict, tests/gpu-checks).
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
