// The compiler's two ways of failing with a tg::Error on a runtime answer: a Status that is not OK,
// and a device name that names no device. Used by the compiler's stages and by the front end.
#ifndef TG_COMPILER_ERRORS_H_
#define TG_COMPILER_ERRORS_H_

#include <string>

#include "absl/status/status.h"
#include "runtime/device.h"

namespace tg::compiler {

// Throws tg::Error with |status|'s message when it is not OK.
void ThrowIfError(const absl::Status& status);

// The device called |name| ("CPU", "OPENCL:1", ...); throws tg::Error (which lists the devices there are)
// when there is none.
runtime::Device& DeviceNamed(const std::string& name);

}  // namespace tg::compiler

#endif  // TG_COMPILER_ERRORS_H_
