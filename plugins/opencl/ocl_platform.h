// ocl_platform.h: finding the OpenCL devices of every platform, once per process.
// The device list and, when it is empty, the precise reason why (unavailable_reason).
#ifndef TG_PLUGINS_OPENCL_OCL_PLATFORM_H_
#define TG_PLUGINS_OPENCL_OCL_PLATFORM_H_

#include <CL/cl.h>

#include <string>
#include <vector>

namespace tg_ocl {

struct ClDeviceEntry {
  cl_platform_id platform;
  cl_device_id device;
  std::string platform_name, platform_version;
};

struct Discovery {
  std::vector<ClDeviceEntry> devices;  // ordinal = index, platforms in ICD order
  std::string reason;                  // why |devices| is empty; "" when it is not
};

// Sets up PoCL's cache directory, loads libOpenCL.so.1 and lists all devices of all platforms.
// Runs once (call_once); the result lives for the process, because cl_platform_id and
// cl_device_id of root devices are never released.
const Discovery& Discover();

// Text of a platform or device info string, "" when the query fails.
std::string PlatformString(cl_platform_id platform, cl_platform_info what);
std::string DeviceString(cl_device_id device, cl_device_info what);

}  // namespace tg_ocl

#endif  // TG_PLUGINS_OPENCL_OCL_PLATFORM_H_
