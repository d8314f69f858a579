/* SPDX-License-Identifier: Apache-2.0 */
/* acme_compile.h: turns "c" dialect kernel source into a loaded kernel function.
 * The only part of the ACME plugin that talks to the outside world (the system C compiler). */
#ifndef ACME_COMPILE_H_
#define ACME_COMPILE_H_

#include <stddef.h>

#include "plugins/abi/tg_plugin.h"

/* Compiles |source| (|len| bytes) with `cc -O2 -shared -fPIC`, dlopen()s the result and looks up
 * |entry|. On success returns 0 and sets *out_fn and *out_lib (for dlclose). On failure returns
 * the tg_code to report (INVALID_ARGUMENT for a compile error, NOT_FOUND for a missing entry,
 * UNAVAILABLE when no compiler runs) and sets *out_log to a malloc()ed message with the compiler's
 * output, which the caller frees. */
tg_code acme_compile(const char* source, size_t len, const char* entry, tg_c_kernel_fn* out_fn,
                     void** out_lib, char** out_log);

#endif /* ACME_COMPILE_H_ */
