/* SPDX-License-Identifier: Apache-2.0 */
/* acme_compile.c: write the source to a temp file, run cc, dlopen, dlsym. */
#define _GNU_SOURCE
#include "acme_compile.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

static char* read_all(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return strdup("(no compiler output)");
  char* text = malloc(65536);
  size_t n = text != NULL ? fread(text, 1, 65535, f) : 0;
  if (text != NULL) text[n] = '\0';
  fclose(f);
  return text;
}

static char* format(const char* a, const char* b) {
  size_t n = strlen(a) + strlen(b) + 1;
  char* s = malloc(n);
  if (s != NULL) snprintf(s, n, "%s%s", a, b);
  return s;
}

/* Runs `cc -O2 -shared -fPIC -o so c -lm` with stdout and stderr in |log|; returns the exit code,
 * or -1 when cc could not be started. */
static int run_cc(const char* c_path, const char* so_path, const char* log_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  char* argv[] = {"cc", "-O2", "-shared", "-fPIC", "-o", (char*)so_path, (char*)c_path, "-lm", NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, "cc", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

tg_code acme_compile(const char* source, size_t len, const char* entry, tg_c_kernel_fn* out_fn,
                     void** out_lib, char** out_log) {
  const char* tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
  char c_path[4096], so_path[4096], log_path[4096];
  snprintf(c_path, sizeof c_path, "%s/acme_XXXXXX.c", tmp);
  int fd = mkstemps(c_path, 2); /* unique per call: compiles may run on several threads */
  if (fd < 0 || write(fd, source, len) != (ssize_t)len) {
    if (fd >= 0) close(fd), unlink(c_path);
    *out_log = format("acme: cannot write a temporary file in ", tmp);
    return TG_CODE_UNAVAILABLE;
  }
  close(fd);
  snprintf(so_path, sizeof so_path, "%.*s.so", (int)(strlen(c_path) - 2), c_path);
  snprintf(log_path, sizeof log_path, "%.*s.log", (int)(strlen(c_path) - 2), c_path);

  int rc = run_cc(c_path, so_path, log_path);
  tg_code code = TG_CODE_OK;
  if (rc != 0) {
    char* log = read_all(log_path);
    *out_log = format(rc < 0 ? "acme: cannot run cc\n" : "acme: C compile failed:\n", log ? log : "");
    free(log);
    code = rc < 0 ? TG_CODE_UNAVAILABLE : TG_CODE_INVALID_ARGUMENT;
  } else {
    void* lib = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
    void* fn = lib != NULL ? dlsym(lib, entry) : NULL;
    if (fn == NULL) {
      *out_log = format("acme: entry point not found: ", entry);
      if (lib != NULL) dlclose(lib);
      code = TG_CODE_NOT_FOUND;
    } else {
      *out_lib = lib;
      *out_fn = (tg_c_kernel_fn)fn;
    }
  }
  unlink(c_path); /* the loaded library stays mapped after its file is gone */
  unlink(so_path);
  unlink(log_path);
  return code;
}
