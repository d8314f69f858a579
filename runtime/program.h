// program.h: a compiled kernel on one device (after render, before launch: docs/architecture.md).
// Created by Device::GetProgram and shared through the program cache; freed through the plugin.
#ifndef TG_RUNTIME_PROGRAM_H_
#define TG_RUNTIME_PROGRAM_H_

#include <string>

#include "plugins/abi/tg_plugin.h"

namespace tg::runtime {

class Device;
class Plugin;

// Kernel source in one of the device's dialects, with the kernel function's name.
struct KernelSource {
  std::string dialect, source, entry;
  // A program the device starts without compiling it (the first execution tier, docs/tiers.md): never
  // looked up in or stored to the disk cache, and counted apart from compiles.
  bool interpreted = false;
};

class Program {  // a compiled kernel on one device; destroyed through the plugin in ~Program
 public:
  // Takes ownership of |handle| (program_destroy in the destructor). |device| must outlive it.
  Program(const Device& device, const Plugin& plugin, tg_program* handle, std::string entry);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  const std::string& entry() const { return entry_; }
  tg_program* handle() const { return handle_; }
  const Device& device() const { return device_; }

 private:
  const Device& device_;
  const Plugin& plugin_;
  tg_program* handle_;
  std::string entry_;
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_PROGRAM_H_
