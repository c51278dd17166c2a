// Three libraries for the live-process check (tests/python/test_check.py): the same kernel built
// as sm_120 SASS (libsm120.so), as sm_90 SASS only (libsm90.so) and as compute_90 PTX only
// (libptx.so). Each exports a C function so that ctypes can load it and call something.
extern "C" __global__ void check_fill(float* out, float value) { out[threadIdx.x] = value; }

extern "C" int check_fixture_id() { return 42; }
