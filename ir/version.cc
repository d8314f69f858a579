#include "ir/version.h"

namespace tg {

const char* version() { return TG_VERSION_STRING; }

}  // namespace tg
