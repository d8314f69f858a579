// SPDX-License-Identifier: Apache-2.0
// plugin_error.h: the tg_error object of a C++ plugin and the guards that keep exceptions inside.
// A plugin that uses the kit defines, in exactly one of its files, the prefix of its messages:
//   const char tg_kit::kErrorPrefix[] = "cuda: ";
// Plugin-internal like the rest of the kit: the version script keeps all of it hidden.
#ifndef TG_PLUGINS_KIT_PLUGIN_ERROR_H_
#define TG_PLUGINS_KIT_PLUGIN_ERROR_H_

#include <exception>
#include <new>
#include <string>

#include "plugins/abi/tg_plugin.h"

// The ABI leaves tg_error opaque; this is the kit's definition. Owned by the host once returned,
// destroyed through DestroyError (the table's error_destroy).
struct tg_error {
  tg_code code;
  std::string message;
};

namespace tg_kit {

// Names the plugin in every message it returns, so a user who runs several plugins knows whose
// error they read. Defined by the plugin (see the top of this file).
extern const char kErrorPrefix[];

// Returned when even the error cannot be allocated; DestroyError never frees it.
inline tg_error g_out_of_memory{TG_CODE_RESOURCE_EXHAUSTED, "out of host memory"};

// |message| cut to what the host reads (TG_MAX_MESSAGE_BYTES with its NUL): the start, where a
// compiler log's first error is, a line saying how much was left out, and the last lines.
inline std::string FitMessage(std::string message) {
  constexpr size_t kBudget = TG_MAX_MESSAGE_BYTES - 1, kMarkerRoom = 64;
  if (message.size() <= kBudget) return message;
  const size_t head = (kBudget - kMarkerRoom) * 3 / 4, tail = kBudget - kMarkerRoom - head;
  const size_t left_out = message.size() - head - tail;
  return message.substr(0, head) + "\n[... " + std::to_string(left_out) + " bytes left out ...]\n" +
         message.substr(message.size() - tail);
}

// A new error with |message| after the plugin's prefix, cut to fit (FitMessage). Never throws and
// never returns NULL.
inline tg_error* MakeError(tg_code code, const std::string& message) noexcept {
  try {
    return new tg_error{code, FitMessage(kErrorPrefix + message)};
  } catch (...) {
    return &g_out_of_memory;
  }
}

inline void DestroyError(tg_error* error) noexcept {
  if (error != &g_out_of_memory) delete error;
}

inline tg_code ErrorCode(const tg_error* error) noexcept {
  return error != nullptr ? error->code : TG_CODE_OK;
}

inline const char* ErrorMessage(const tg_error* error) noexcept {
  return error != nullptr ? error->message.c_str() : "";
}

// Runs |body| (returning tg_error*) and turns any C++ exception into an error, so nothing throws
// across the C boundary (tg_plugin.h: THREADING AND OWNERSHIP).
template <typename F>
tg_error* Guard(F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return MakeError(TG_CODE_RESOURCE_EXHAUSTED, "out of host memory");
  } catch (const std::exception& e) {
    return MakeError(TG_CODE_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return MakeError(TG_CODE_INTERNAL, "internal error: unknown exception");
  }
}

// For entry points that return nothing (frees, destroys, close): an exception is swallowed,
// because there is no channel to report it and crashing the host is worse than a leak.
template <typename F>
void GuardVoid(F&& body) noexcept {
  try {
    body();
  } catch (...) {
  }
}

}  // namespace tg_kit

#endif  // TG_PLUGINS_KIT_PLUGIN_ERROR_H_
