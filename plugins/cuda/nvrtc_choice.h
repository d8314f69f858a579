// nvrtc_choice.h: which NVRTC compiles cuda-c for a device, by the version of its driver.
//
// The driver loads what NVRTC makes only under CUDA's compatibility rules: NVRTC of a newer major
// version than the driver emits PTX the driver's JIT refuses (CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
// and cubins it need not load; of the same major version and a newer minor, its cubins load through
// minor version compatibility (its PTX would not, which is one reason cuda-c programs are cubins).
// So a device uses the newest NVRTC installed whose major version is not newer than its driver's,
// and offers no cuda-c where there is none.
#ifndef TG_PLUGINS_CUDA_NVRTC_CHOICE_H_
#define TG_PLUGINS_CUDA_NVRTC_CHOICE_H_

#include <string>

#include "plugins/cuda/cuda_api.h"

namespace tg_cuda {

struct NvrtcChoice {
  const NvrtcApi* nvrtc = nullptr;  // NULL: no NVRTC this driver can use
  // For the compile fingerprint: "libnvrtc.so.12 12.8", with any newer NVRTC passed over named, or
  // "no NVRTC ..." when there is none.
  std::string description;
  std::string why_none;  // when |nvrtc| is NULL: what was found and why it cannot be used
};

// |driver_version| as cuDriverGetVersion says it (12040 is CUDA 12.4); 0 (unknown) takes the first
// NVRTC found, as compiling without a device does.
NvrtcChoice ChooseNvrtc(int driver_version);

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_NVRTC_CHOICE_H_
