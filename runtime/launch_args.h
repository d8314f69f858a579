// launch_args.h: how the compiler describes one launch: grid dimensions and kernel arguments.
// Consumed by Device::Launch, which turns them into the ABI's tg_launch_args.
#ifndef TG_RUNTIME_LAUNCH_ARGS_H_
#define TG_RUNTIME_LAUNCH_ARGS_H_

#include <array>
#include <cstdint>

#include "plugins/abi/tg_plugin.h"

namespace tg::runtime {

class Buffer;

// The grid in WORKGROUPS: work items = num_groups * group_size per dimension (ABI rule).
struct LaunchDims {
  std::array<uint32_t, 3> num_groups{1, 1, 1}, group_size{1, 1, 1};
};

// One kernel argument, in the kernel's parameter order. Buffers are borrowed: the caller keeps
// them alive until the launch completes (Device::Synchronize).
struct KernelArg {
  static KernelArg Buf(Buffer* b, uint64_t byte_offset = 0) { return {TG_ARG_BUFFER, b, byte_offset, 0}; }
  static KernelArg I32(int32_t v) { return {TG_ARG_I32, nullptr, 0, v}; }
  static KernelArg I64(int64_t v) { return {TG_ARG_I64, nullptr, 0, v}; }
  uint32_t kind; Buffer* buffer = nullptr; uint64_t offset = 0; int64_t value = 0;
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_LAUNCH_ARGS_H_
