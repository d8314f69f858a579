// native_handles.cc: typed, checked calls into a plugin's "tg.native_handles".
#include "runtime/native_handles.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "runtime/plugin_extension.h"

namespace tg::runtime {
namespace {

const tg_native_handles_ext* Extension(const Plugin& plugin) {
  return FindExtension<tg_native_handles_ext>(plugin, TG_NATIVE_HANDLES_NAME, 1,
                                              TG_SIZE_TO(tg_native_handles_ext, device_bind_thread));
}

absl::StatusOr<const tg_native_handles_ext*> Require(const Device& device) {
  const tg_native_handles_ext* ext = Extension(device.plugin());
  if (ext == nullptr || ext->buffer_native == nullptr || ext->device_native == nullptr ||
      ext->device_bind_thread == nullptr)
    return absl::UnimplementedError(absl::StrCat("device ", device.name(), ": plugin ", device.plugin().Label(),
                                                 " has no ", TG_NATIVE_HANDLES_NAME, " extension (version 1)"));
  return ext;
}

// The plugin's static memory-kind string, bounded like every plugin string.
absl::StatusOr<std::string> MemoryKind(const Device& device, const char* kind) {
  std::optional<std::string> s = PluginString(kind);
  if (!s || s->empty())
    return absl::InternalError(absl::StrCat(device.plugin().Label(), ": ", TG_NATIVE_HANDLES_NAME,
                                            " returned no memory kind"));
  return *s;
}

}  // namespace

bool HasNativeHandles(const Device& device) { return Require(device).ok(); }

absl::StatusOr<NativeBuffer> NativeBufferOf(Buffer& buffer) {
  absl::StatusOr<const tg_native_handles_ext*> ext = Require(buffer.device());
  if (!ext.ok()) return ext.status();
  if (absl::Status s = buffer.EnsureAllocated(); !s.ok()) return s;
  uint64_t address = 0;
  const char* kind = nullptr;
  const Plugin& plugin = buffer.device().plugin();
  if (absl::Status s = plugin.Check((*ext)->buffer_native(buffer.handle(), &address, &kind), "buffer_native"); !s.ok())
    return s;
  absl::StatusOr<std::string> memory_kind = MemoryKind(buffer.device(), kind);
  if (!memory_kind.ok()) return memory_kind.status();
  return NativeBuffer{address, *memory_kind};
}

absl::StatusOr<NativeDevice> NativeDeviceOf(const Device& device) {
  absl::StatusOr<const tg_native_handles_ext*> ext = Require(device);
  if (!ext.ok()) return ext.status();
  NativeDevice out;
  const char* kind = nullptr;
  if (absl::Status s = device.plugin().Check(
          (*ext)->device_native(device.handle(), &kind, &out.stream, &out.context), "device_native");
      !s.ok())
    return s;
  absl::StatusOr<std::string> memory_kind = MemoryKind(device, kind);
  if (!memory_kind.ok()) return memory_kind.status();
  out.memory_kind = *memory_kind;
  return out;
}

absl::Status BindThreadTo(const Device& device) {
  absl::StatusOr<const tg_native_handles_ext*> ext = Require(device);
  if (!ext.ok()) return ext.status();
  return device.plugin().Check((*ext)->device_bind_thread(device.handle()), "device_bind_thread");
}

}  // namespace tg::runtime
