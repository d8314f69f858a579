// nvrtc_choice.cc: the newest NVRTC no newer a major version than the driver.
#include "plugins/cuda/nvrtc_choice.h"

#include <utility>
#include <vector>

namespace tg_cuda {
namespace {

// 12040 -> "12.4"
std::string CudaVersion(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string Describe(const NvrtcApi& nv) { return nv.library + " " + nv.version; }

// "libnvrtc.so.13 13.0, libnvrtc.so.14 14.1"
std::string List(const std::vector<const NvrtcApi*>& nvs) {
  std::string out;
  for (const NvrtcApi* nv : nvs) out += (out.empty() ? "" : ", ") + Describe(*nv);
  return out;
}

}  // namespace

NvrtcChoice ChooseNvrtc(int driver_version) {
  NvrtcChoice c;
  std::string why;
  const std::vector<NvrtcApi>& found = NvrtcLibraries(&why);
  if (found.empty()) {
    c.description = "no NVRTC";
    c.why_none = why;
    return c;
  }
  if (driver_version <= 0) {
    c.nvrtc = &found.front();
    c.description = Describe(*c.nvrtc);
    return c;
  }
  std::vector<const NvrtcApi*> too_new;
  for (const NvrtcApi& nv : found) {
    if (nv.major > driver_version / 1000) {
      too_new.push_back(&nv);
    } else if (c.nvrtc == nullptr || std::pair(nv.major, nv.minor) > std::pair(c.nvrtc->major, c.nvrtc->minor)) {
      c.nvrtc = &nv;
    }
  }
  std::string newer = List(too_new) + (too_new.size() == 1 ? " is" : " are") + " newer than the driver's CUDA " +
                      CudaVersion(driver_version);
  if (c.nvrtc == nullptr) {
    c.description = "no NVRTC (" + newer + ")";
    c.why_none = "cuda-c needs an NVRTC no newer a major version than the driver, whose JIT and loader refuse "
                 "what a newer one makes: " + newer + "; install NVRTC " + std::to_string(driver_version / 1000) +
                 ".x or older, or a newer driver";
    return c;
  }
  c.description = Describe(*c.nvrtc);
  if (!too_new.empty()) c.description += " (not " + newer + ")";
  return c;
}

}  // namespace tg_cuda
