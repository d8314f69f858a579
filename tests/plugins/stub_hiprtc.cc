// stub_hiprtc.cc: a stand-in hiprtc that reports version <TG_STUB_ROCM_MAJOR>.2 and compiles
// nothing: every program fails to be created, with a message that says it came from here. Built as
// ROCm 6's separate libhiprtc.so.6, and into ROCm 5's libamdhip64.so.5 stub (where hiprtc lived).
// Defined against the HIP headers, like the runtime stub.
#include <hip/hiprtc.h>

extern "C" {

hiprtcResult hiprtcVersion(int* major, int* minor) {
  *major = TG_STUB_ROCM_MAJOR;
  *minor = 2;
  return HIPRTC_SUCCESS;
}
const char* hiprtcGetErrorString(hiprtcResult r) {
  return r == HIPRTC_SUCCESS ? "HIPRTC_SUCCESS" : "the stub hiprtc compiles nothing";
}
hiprtcResult hiprtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name, int num_headers,
                                 const char** headers, const char** include_names) {
  (void)src, (void)name, (void)num_headers, (void)headers, (void)include_names;
  *prog = nullptr;
  return HIPRTC_ERROR_INTERNAL_ERROR;
}
hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int num_options, const char** options) {
  (void)prog, (void)num_options, (void)options;
  return HIPRTC_ERROR_INVALID_PROGRAM;
}
hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t* size) {
  (void)prog;
  *size = 0;
  return HIPRTC_ERROR_INVALID_PROGRAM;
}
hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char* log) {
  (void)prog, (void)log;
  return HIPRTC_ERROR_INVALID_PROGRAM;
}
hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t* size) {
  (void)prog;
  *size = 0;
  return HIPRTC_ERROR_INVALID_PROGRAM;
}
hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* code) {
  (void)prog, (void)code;
  return HIPRTC_ERROR_INVALID_PROGRAM;
}
hiprtcResult hiprtcDestroyProgram(hiprtcProgram* prog) {
  (void)prog;
  return HIPRTC_SUCCESS;
}

}  // extern "C"
