// SPDX-License-Identifier: Apache-2.0
// ordering_args.h: the argument checks of ABI 1.1's event_record and device_wait_event, for plugins
// whose devices have only their default stream (every plugin of ours): the same refusals in each.
#ifndef TG_PLUGINS_KIT_ORDERING_ARGS_H_
#define TG_PLUGINS_KIT_ORDERING_ARGS_H_

#include "plugins/abi/tg_plugin.h"
#include "plugins/kit/plugin_error.h"

namespace tg_kit {

// INVALID_ARGUMENT for a NULL device or out_event, or a stream other than the default (NULL) one.
inline tg_error* CheckEventRecordArgs(const tg_device* device, const tg_stream* stream,
                                      tg_event* const* out_event) noexcept {
  if (device == nullptr || out_event == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "event_record: NULL device or out_event");
  }
  if (stream != nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "event_record: only the default (NULL) stream exists");
  return nullptr;
}

// INVALID_ARGUMENT for a NULL device or event, or a stream other than the default (NULL) one.
inline tg_error* CheckDeviceWaitEventArgs(const tg_device* device, const tg_stream* stream,
                                          const tg_event* event) noexcept {
  if (device == nullptr || event == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "device_wait_event: NULL device or event");
  }
  if (stream != nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "device_wait_event: only the default (NULL) stream exists");
  }
  return nullptr;
}

}  // namespace tg_kit

#endif  // TG_PLUGINS_KIT_ORDERING_ARGS_H_
