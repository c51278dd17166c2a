// A trace record file for the parser, analysis and report tests: one JIT, one compatible-SASS, one
// failed load, a first use, an unload and a lookup, then lines a crash or a hostile writer leaves
// (cut short, not an object, wrong types).
#pragma once

namespace smcompat::trace::testing {

constexpr const char* kRecords =
    R"({"ev":"start","pid":7,"exe":"/bin/app","env":{}})"
    "\n"
    R"({"ev":"load","pid":7,"id":1,"api":"cuModuleLoadData","kind":"module","source":"memory","result":0,"device":0,"device_cc":"12.0","driver_cuda":13000,"load_ms":31.5,"format":"fatbin","images":[{"target":"sm_80"},{"target":"compute_80","ptx_isa":"9.0"}],"functions":[{"name":"scale","binary_version":120,"ptx_version":80}]})"
    "\n"
    R"({"ev":"load","pid":7,"id":2,"api":"cuModuleLoadData","kind":"module","source":"memory","result":0,"device":0,"device_cc":"8.6","load_ms":0.1,"images":[{"target":"sm_80"}],"functions":[{"name":"scale","binary_version":80,"ptx_version":80},{"name":"add","binary_version":80,"ptx_version":80}]})"
    "\n"
    R"({"ev":"load","pid":7,"id":3,"api":"cuLibraryLoadData","kind":"library","source":"memory","result":209,"error":"CUDA_ERROR_NO_BINARY_FOR_GPU","device":0,"device_cc":"12.0","driver_cuda":13000,"load_ms":0.1,"images":[{"target":"sm_90a"}]})"
    "\n"
    R"({"ev":"get_function","pid":7,"id":1,"first_use":true,"ms":2.5,"result":0,"name":"scale","binary_version":120,"ptx_version":80})"
    "\n"
    R"({"ev":"unload","pid":7,"id":1,"result":0})"
    "\n"
    R"({"ev":"lookup","pid":7,"via":"dlsym","name":"cuGetProcAddress_v2","wrapped":true,"found":true})"
    "\n"
    "{\"ev\":\"load\",\"pid\":7,\"id\":4,\"api\":\"cuModu"  // cut short by a crash
    "\n"
    R"([1,2,3])"
    "\n"
    R"({"ev":"load","pid":7,"id":"x","images":"no","functions":[1,{"binary_version":"bad"}],"device_cc":"nonsense"})"
    "\n";

}  // namespace smcompat::trace::testing
