// device_event.h: the host's handle on a plugin event: the completion of work enqueued on one device,
// destroyed through the plugin that made it. Empty means "already complete": what a device without
// event_record hands out after synchronizing instead.
#ifndef TG_RUNTIME_DEVICE_EVENT_H_
#define TG_RUNTIME_DEVICE_EVENT_H_

#include <memory>

#include "plugins/abi/tg_plugin.h"

namespace tg::runtime {

class DeviceEvent {
 public:
  DeviceEvent() = default;  // complete
  DeviceEvent(const tg_plugin_api* api, tg_event* event) : event_(event, Deleter{api}) {}

  bool empty() const { return event_ == nullptr; }
  tg_event* get() const { return event_.get(); }

 private:
  struct Deleter {
    const tg_plugin_api* api;
    void operator()(tg_event* e) const { api->event_destroy(e); }
  };
  std::unique_ptr<tg_event, Deleter> event_;
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_DEVICE_EVENT_H_
