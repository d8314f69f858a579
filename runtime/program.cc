// program.cc: Program's lifetime.
#include "runtime/program.h"

#include "runtime/plugin.h"

namespace tg::runtime {

Program::Program(const Device& device, const Plugin& plugin, tg_program* handle, std::string entry)
    : device_(device), plugin_(plugin), handle_(handle), entry_(std::move(entry)) {}

Program::~Program() {
  if (handle_ != nullptr) plugin_.api().program_destroy(handle_);
}

}  // namespace tg::runtime
