// version.h: tinygrad-cc's release version, written here and nowhere else (docs/releasing.md says what
// it promises and how a release bumps it). It lives in the lowest room so that every layer, the `tg`
// command line and users' programs can all name it.
#pragma once

#define TG_VERSION_MAJOR 0
#define TG_VERSION_MINOR 12
#define TG_VERSION_PATCH 0

// Spelled from the three numbers, so a release edits only the lines above.
#define TG_VERSION_STRINGIFY_(x) #x
#define TG_VERSION_STRINGIFY(x) TG_VERSION_STRINGIFY_(x)
#define TG_VERSION_STRING                                                                   \
  TG_VERSION_STRINGIFY(TG_VERSION_MAJOR) "." TG_VERSION_STRINGIFY(TG_VERSION_MINOR) "." \
      TG_VERSION_STRINGIFY(TG_VERSION_PATCH)

namespace tg {

// "MAJOR.MINOR.PATCH" of the library this program linked. The macros above are the headers it compiled
// against; the two differ only when a program is run against another build of the library, which is
// why this is a function compiled into the library rather than an inline copy of the macro.
const char* version();

}  // namespace tg
