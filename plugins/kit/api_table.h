// SPDX-License-Identifier: Apache-2.0
// api_table.h: building a plugin's tg_plugin_api from plain C++ functions.
//
// A C++ plugin writes its implementation as ordinary functions that may throw, and the kit turns
// each into the C entry point the table needs (Entry<&Fn>: same signature, exceptions caught by
// plugin_error.h's guards). BaseApi fills what every such plugin fills the same way. Plugins that
// name their functions as TG_KIT_SET_ENTRIES below expects (DeviceCount, OpenDevice, ...,
// EventTiming, in one namespace) set all of those slots at once; anything else is set by hand:
//
//   tg_plugin_api MakeApi() {
//     tg_plugin_api api = tg_kit::BaseApi("ACME", "0.1.0");
//     TG_KIT_SET_ENTRIES(api, acme);
//     api.extensions = acme::Extensions();
//     return api;
//   }
//   TG_KIT_EXPORT_PLUGIN_API(MakeApi)
#ifndef TG_PLUGINS_KIT_API_TABLE_H_
#define TG_PLUGINS_KIT_API_TABLE_H_

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "plugins/abi/tg_plugin.h"
#include "plugins/kit/plugin_error.h"

namespace tg_kit {
namespace internal {

template <auto Fn, typename R, typename... A>
R GuardedCall(A... args) noexcept {
  static_assert(std::is_same_v<R, tg_error*> || std::is_void_v<R>,
                "an entry point returns tg_error* or nothing");
  if constexpr (std::is_void_v<R>) {
    GuardVoid([&] { Fn(args...); });
  } else {
    return Guard([&] { return Fn(args...); });
  }
}

template <auto Fn, typename R, typename... A>
constexpr auto EntryFor(R (*)(A...)) {
  return &GuardedCall<Fn, R, A...>;
}
template <auto Fn, typename R, typename... A>
constexpr auto EntryFor(R (*)(A...) noexcept) {
  return &GuardedCall<Fn, R, A...>;
}

inline std::atomic<int> g_init_count{0};

// Reference counted as the ABI asks, with nothing to set up: driver loading and device discovery
// wait for the first device query, so initialize stays cheap and cannot fail.
inline tg_error* Initialize(const tg_host_services*) noexcept {
  g_init_count.fetch_add(1);
  return nullptr;
}
inline void Shutdown() noexcept { g_init_count.fetch_sub(1); }

}  // namespace internal

// The C entry point for |Fn| (a function returning tg_error* or void): the same parameters, and
// any exception |Fn| throws becomes an error (or, for void, is swallowed).
template <auto Fn>
inline constexpr auto Entry = internal::EntryFor<Fn>(Fn);

// device_count for a |Count| of shape uint32_t() or uint32_t(const char** reason): checks the out
// pointer, then asks |Count|.
template <auto Count>
tg_error* DeviceCountEntry(uint32_t* out) noexcept {
  return Guard([&]() -> tg_error* {
    if (out == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "device_count: NULL out_count");
    if constexpr (std::is_invocable_v<decltype(Count)>) {
      *out = Count();
    } else {
      *out = Count(nullptr);
    }
    return nullptr;
  });
}

// unavailable_reason for a |Count| of shape uint32_t(const char** reason) that leaves |reason|
// NULL when it finds devices and points it at static storage when it finds none.
template <auto Count>
const char* UnavailableReasonEntry() noexcept {
  try {
    const char* reason = nullptr;
    Count(&reason);
    return reason;
  } catch (...) {
    return "device discovery failed";
  }
}

// The unavailable_reason slot for |Count|: NULL (no reason to give) when |Count| takes none, as
// for a device that is always there.
template <auto Count>
constexpr auto UnavailableReasonFor() -> const char* (*)() {
  if constexpr (std::is_invocable_v<decltype(Count)>) {
    return nullptr;
  } else {
    return &UnavailableReasonEntry<Count>;
  }
}

// A table with the sizes and versions of this header, |name| and |version| (static strings), the
// kit's error object and a reference-counted initialize/shutdown; every other slot is NULL.
inline tg_plugin_api BaseApi(const char* name, const char* version) {
  tg_plugin_api api{};
  api.struct_size = sizeof(tg_plugin_api);
  api.abi_major = TG_ABI_MAJOR;
  api.abi_minor = TG_ABI_MINOR;
  api.plugin_name = name;
  api.plugin_version = version;
  api.error_code = ErrorCode;
  api.error_message = ErrorMessage;
  api.error_destroy = DestroyError;
  api.initialize = internal::Initialize;
  api.shutdown = internal::Shutdown;
  return api;
}

// An extension record of type |Ext| (whose first member is `tg_ext base`) with its header filled
// in and every function pointer NULL, for the plugin to set; |next| continues the chain.
template <typename Ext>
Ext NewExtension(const char* name, uint32_t version, const tg_ext* next = nullptr) {
  Ext ext{};
  ext.base.struct_size = sizeof ext;
  ext.base.name = name;
  ext.base.version = version;
  ext.base.next = next;
  return ext;
}

// What tg_plugin_get_api returns: |api| for a host of the same major, NULL for any other (the one
// case the ABI allows NULL).
inline const tg_plugin_api* ApiForHost(uint32_t host_abi_major, const tg_plugin_api* api) noexcept {
  return host_abi_major == TG_ABI_MAJOR ? api : nullptr;
}

}  // namespace tg_kit

// Sets the device, memory, program, launch and event slots of |api| to the guarded functions of
// namespace |ns| named after them; device_count and unavailable_reason both come from
// ns::DeviceCount (see DeviceCountEntry). Streams stay NULL (the default stream only) unless set
// after.
#define TG_KIT_SET_ENTRIES(api, ns)                                                                \
  do {                                                                                             \
    (api).device_count = ::tg_kit::DeviceCountEntry<&ns::DeviceCount>;                             \
    (api).unavailable_reason = ::tg_kit::UnavailableReasonFor<&ns::DeviceCount>();                 \
    (api).device_open = ::tg_kit::Entry<&ns::OpenDevice>;                                          \
    (api).device_close = ::tg_kit::Entry<&ns::CloseDevice>;                                        \
    (api).device_props = ::tg_kit::Entry<&ns::GetDeviceProps>;                                     \
    (api).buffer_alloc = ::tg_kit::Entry<&ns::BufferAlloc>;                                        \
    (api).buffer_free = ::tg_kit::Entry<&ns::BufferFree>;                                          \
    (api).copy_h2d = ::tg_kit::Entry<&ns::CopyH2D>;                                                \
    (api).copy_d2h = ::tg_kit::Entry<&ns::CopyD2H>;                                                \
    (api).copy_d2d = ::tg_kit::Entry<&ns::CopyD2D>;                                                \
    (api).program_compile = ::tg_kit::Entry<&ns::ProgramCompile>;                                  \
    (api).program_load = ::tg_kit::Entry<&ns::ProgramLoad>;                                        \
    (api).program_binary = ::tg_kit::Entry<&ns::ProgramBinary>;                                    \
    (api).program_destroy = ::tg_kit::Entry<&ns::ProgramDestroy>;                                  \
    (api).launch = ::tg_kit::Entry<&ns::Launch>;                                                   \
    (api).stream_sync = ::tg_kit::Entry<&ns::StreamSync>;                                          \
    (api).event_wait = ::tg_kit::Entry<&ns::EventWait>;                                            \
    (api).event_query = ::tg_kit::Entry<&ns::EventQuery>;                                          \
    (api).event_destroy = ::tg_kit::Entry<&ns::EventDestroy>;                                      \
    (api).event_timing_ns = ::tg_kit::Entry<&ns::EventTiming>;                                     \
  } while (false)

// Defines the plugin's one exported symbol: the table |make_api()| builds, made on the first call
// (thread-safe), for a host of the same ABI major.
#define TG_KIT_EXPORT_PLUGIN_API(make_api)                                                         \
  extern "C" TG_EXPORT const tg_plugin_api* tg_plugin_get_api(uint32_t host_abi_major,             \
                                                              uint32_t /*host_abi_minor*/) {       \
    static const tg_plugin_api api = make_api();                                                   \
    return ::tg_kit::ApiForHost(host_abi_major, &api);                                             \
  }

#endif  // TG_PLUGINS_KIT_API_TABLE_H_
