// device_session.h: an initialized plugin with one open device, and RAII handles for its objects.
// What every device-tier case (T1..T4) starts from; it talks to the raw tg_plugin_api table only.
#ifndef TG_PLUGINS_CTS_DEVICE_SESSION_H_
#define TG_PLUGINS_CTS_DEVICE_SESSION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "plugins/abi/tg_plugin.h"
#include "plugins/cts/plugin_handle.h"

namespace tg_cts {

// Owns one plugin object and releases it through the table; move-only. release() hands the raw
// handle over (e.g. to leave it to device_close).
template <typename T, void (*tg_plugin_api::*Destroy)(T*)>
class Handle {
 public:
  Handle() = default;
  Handle(const tg_plugin_api* api, T* h) : api_(api), h_(h) {}
  Handle(Handle&& o) noexcept : api_(o.api_), h_(o.release()) {}
  Handle& operator=(Handle&& o) noexcept {
    reset();
    api_ = o.api_;
    h_ = o.release();
    return *this;
  }
  ~Handle() { reset(); }
  T* get() const { return h_; }
  T* release() {
    T* h = h_;
    h_ = nullptr;
    return h;
  }
  void reset() {
    if (h_ != nullptr) (api_->*Destroy)(h_);
    h_ = nullptr;
  }

 private:
  const tg_plugin_api* api_ = nullptr;
  T* h_ = nullptr;
};
using Buffer = Handle<tg_buffer, &tg_plugin_api::buffer_free>;
using Program = Handle<tg_program, &tg_plugin_api::program_destroy>;
using Event = Handle<tg_event, &tg_plugin_api::event_destroy>;
using Stream = Handle<tg_stream, &tg_plugin_api::stream_destroy>;

struct Grid {
  uint32_t groups[3] = {1, 1, 1};  // in workgroups
  uint32_t size[3] = {1, 1, 1};    // work items per group
};

tg_arg BufferArg(const Buffer& b, uint64_t offset = 0);
tg_arg I32Arg(int32_t v);
tg_arg I64Arg(int64_t v);

class DeviceSession {
 public:
  // initialize + device_open(p.device_ordinal) + device_props. Skips the case when the plugin did
  // not load or has no devices; fails it when any of those calls fails.
  explicit DeviceSession(const Plugin& p);
  ~DeviceSession();  // device_close (when still open) + shutdown
  DeviceSession(const DeviceSession&) = delete;
  DeviceSession& operator=(const DeviceSession&) = delete;

  const tg_plugin_api& api() const { return api_; }
  tg_device* device() const { return device_; }
  const tg_device_props& props() const { return props_; }
  bool HasDialect(const std::string& dialect) const;
  bool HasCap(uint32_t cap) const { return (props_.caps & cap) != 0; }
  // The first declared dialect the corpus has kernels for; skips the case when there is none.
  std::string ExecDialect() const;
  // Closes the device early (robustness cases); the destructor then only shuts down.
  void CloseDevice();

  Buffer Alloc(uint64_t bytes) const;  // fails the case on error
  void Write(const Buffer& b, uint64_t offset, const void* src, uint64_t n) const;
  void Read(const Buffer& b, uint64_t offset, void* dst, uint64_t n) const;
  template <typename T>
  std::vector<T> ReadAll(const Buffer& b, size_t count) const {
    std::vector<T> out(count);
    Read(b, 0, out.data(), count * sizeof(T));
    return out;
  }

  // Compiles kernel |name| of the corpus in |dialect|; fails the case on error.
  Program Compile(const std::string& dialect, const std::string& name) const;
  tg_error* CompileRaw(const std::string& dialect, const std::string& source, const std::string& entry,
                       tg_program** out) const;
  tg_error* LaunchRaw(const Program& prog, const Grid& g, const std::vector<tg_arg>& args,
                      uint32_t flags = 0, tg_event** done = nullptr, tg_stream* stream = nullptr) const;
  void Launch(const Program& prog, const Grid& g, const std::vector<tg_arg>& args) const;
  void Sync(tg_stream* stream = nullptr) const;  // stream_sync; fails the case on error

 private:
  const Plugin& plugin_;
  const tg_plugin_api& api_;
  tg_device* device_ = nullptr;
  tg_device_props props_{};
};

// Grid of |n| work items in dimension 0, in groups of min(|group|, the device's limits).
Grid Linear(const DeviceSession& s, uint64_t n, uint32_t group = 64);

}  // namespace tg_cts

#endif  // TG_PLUGINS_CTS_DEVICE_SESSION_H_
