/* dlopen_jail.c: a dlopen defined in the test executable. The executable comes first in the
 * process's symbol lookup, so the plugins' calls to dlopen land here; this one rewrites bare names
 * into the jail directory and hands every call on to the C library's dlopen (RTLD_NEXT). */
#define _GNU_SOURCE
#include "tests/plugins/dlopen_jail.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static const char* jail_dir = NULL;

void tg_dlopen_jail(const char* dir) { jail_dir = dir; }

void* dlopen(const char* file, int mode) {
  typedef void* (*dlopen_fn)(const char*, int);
  dlopen_fn next = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
  if (file == NULL || jail_dir == NULL || strchr(file, '/') != NULL) return next(file, mode);
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s", jail_dir, file) >= (int)sizeof path) return NULL;
  return next(path, mode);
}
