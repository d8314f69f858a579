/* SPDX-License-Identifier: Apache-2.0 */
/* acme_plugin.c: ACME, a third-party tinygrad-cc device plugin built against tg_plugin.h alone.
 *
 * One device, the host CPU: "c" dialect kernels are compiled with the system cc (acme_compile.c)
 * and run one workgroup after another on the calling thread, so every launch and copy finishes
 * before it returns and events are born complete. Small on purpose: it shows what the ABI asks
 * of a plugin, not how to be fast (plugins/cpu is the fast one). OPTIONAL functions it leaves
 * NULL: program_load / program_binary (nothing is cached) and streams (only the default one).
 */
#define _POSIX_C_SOURCE 200809L /* strdup, clock_gettime under -std=c11 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acme_compile.h"
#include "plugins/abi/tg_plugin.h"

/* ---- errors: a code and a message, freed by the host through error_destroy ---- */
struct tg_error {
  tg_code code;
  char* message;
};
static struct tg_error g_no_memory = {TG_CODE_RESOURCE_EXHAUSTED, "acme: out of memory"};

static tg_error* error_take(tg_code code, char* message) { /* takes |message| (malloc()ed) */
  tg_error* e = malloc(sizeof *e);
  if (e == NULL || message == NULL) {
    free(e), free(message);
    return &g_no_memory;
  }
  e->code = code;
  e->message = message;
  return e;
}
static tg_error* error_new(tg_code code, const char* message) {
  size_t n = strlen(message) + 7;
  char* text = malloc(n);
  if (text != NULL) strcpy(text, "acme: "), strcat(text, message);
  return error_take(code, text);
}
static tg_code error_code(const tg_error* e) { return e != NULL ? e->code : TG_CODE_OK; }
static const char* error_message(const tg_error* e) { return e != NULL ? e->message : ""; }
static void error_destroy(tg_error* e) {
  if (e == NULL || e == &g_no_memory) return;
  free(e->message);
  free(e);
}

/* ---- lifetime: reference counted, nothing to set up ---- */
static atomic_int g_init_count;
static tg_error* initialize(const tg_host_services* host) {
  (void)host;
  atomic_fetch_add(&g_init_count, 1);
  return NULL;
}
static void shutdown_plugin(void) { atomic_fetch_sub(&g_init_count, 1); }

/* ---- the one device ---- */
struct tg_device {
  pthread_mutex_t mu;
  tg_code pending_code; /* first failed kernel since the last stream_sync */
  char* pending_message;
};
static const char* const kDialects[] = {"c"};

static tg_error* device_count(uint32_t* out) {
  if (out == NULL) return error_new(TG_CODE_INVALID_ARGUMENT, "device_count: NULL out_count");
  *out = 1;
  return NULL;
}
static tg_error* device_open(uint32_t ordinal, tg_device** out) {
  if (out == NULL) return error_new(TG_CODE_INVALID_ARGUMENT, "device_open: NULL out_device");
  if (ordinal != 0) return error_new(TG_CODE_NOT_FOUND, "device_open: ACME has one device, ordinal 0");
  tg_device* d = calloc(1, sizeof *d);
  if (d == NULL) return &g_no_memory;
  pthread_mutex_init(&d->mu, NULL);
  *out = d;
  return NULL;
}
/* Buffers and programs are plain malloc / dlopen and need no device, so a device closed with
 * live objects leaves nothing dangling that their later free would touch. */
static void device_close(tg_device* d) {
  if (d == NULL) return;
  pthread_mutex_destroy(&d->mu);
  free(d->pending_message);
  free(d);
}

static uint64_t host_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

/* Fills a full 1.0 struct, then copies only what fits the host's struct_size (the ABI rule that
 * lets an older host pass a shorter struct). */
static tg_error* device_props(tg_device* d, tg_device_props* inout) {
  if (d == NULL || inout == NULL) return error_new(TG_CODE_INVALID_ARGUMENT, "device_props: NULL argument");
  tg_device_props p;
  memset(&p, 0, sizeof p);
  p.name = "ACME serial CPU";
  p.vendor = "ACME";
  p.arch = "x86_64";
  p.compile_fingerprint = "acme-0.1|cc -O2";
  p.global_mem_bytes = p.max_alloc_bytes = host_memory();
  p.min_offset_align = 1;
  p.max_group_size[0] = p.max_group_size[1] = p.max_group_size[2] = 256;
  p.max_group_threads = 256;
  p.preferred_vector_width = 1;
  p.compute_units = 1;
  p.caps = TG_CAP_FP64 | TG_CAP_TIMING | TG_CAP_UNIFIED_MEMORY;
  p.num_source_dialects = 1;
  p.source_dialects = kDialects;
  uint64_t n = inout->struct_size < sizeof p ? inout->struct_size : sizeof p;
  if (n > sizeof p.struct_size) {
    memcpy((char*)inout + sizeof p.struct_size, (char*)&p + sizeof p.struct_size, n - sizeof p.struct_size);
  }
  return NULL;
}

/* ---- events: every operation is synchronous, so an event only carries its result ---- */
struct tg_event {
  tg_code code;
  char* message;
  uint64_t start_ns, end_ns;
};
static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
static tg_error* emit_event(tg_event** out, uint64_t start, uint64_t end, tg_code code, const char* msg) {
  if (out == NULL) return NULL;
  tg_event* e = calloc(1, sizeof *e);
  if (e == NULL) return &g_no_memory;
  e->code = code;
  e->message = msg != NULL ? strdup(msg) : NULL;
  e->start_ns = start;
  e->end_ns = end;
  *out = e;
  return NULL;
}
static tg_error* event_wait(tg_event* e, uint64_t timeout_ns) {
  (void)timeout_ns;
  if (e == NULL) return error_new(TG_CODE_INVALID_ARGUMENT, "event_wait: NULL event");
  return e->code == TG_CODE_OK ? NULL : error_new(e->code, e->message ? e->message : "kernel failed");
}
static tg_error* event_query(tg_event* e, uint32_t* done) {
  if (e == NULL || done == NULL) return error_new(TG_CODE_INVALID_ARGUMENT, "event_query: NULL argument");
  *done = 1;
  return NULL;
}
static void event_destroy(tg_event* e) {
  if (e != NULL) free(e->message);
  free(e);
}
static tg_error* event_timing_ns(tg_event* e, uint64_t* start, uint64_t* end) {
  if (e == NULL || start == NULL || end == NULL) return error_new(TG_CODE_INVALID_ARGUMENT, "event_timing_ns: NULL");
  *start = e->start_ns;
  *end = e->end_ns;
  return NULL;
}

/* ---- memory: host allocations; copies check ranges without overflowing ---- */
struct tg_buffer {
  uint64_t size;
  unsigned char* data;
};
static tg_error* buffer_alloc(tg_device* d, uint64_t bytes, uint32_t flags, tg_buffer** out) {
  if (d == NULL || out == NULL || flags != 0) return error_new(TG_CODE_INVALID_ARGUMENT, "buffer_alloc: bad argument");
  if (bytes == 0) return error_new(TG_CODE_INVALID_ARGUMENT, "buffer_alloc: 0 bytes");
  if (bytes > host_memory()) return error_new(TG_CODE_RESOURCE_EXHAUSTED, "buffer_alloc: larger than memory");
  tg_buffer* b = malloc(sizeof *b);
  unsigned char* data = b != NULL ? malloc(bytes) : NULL;
  if (data == NULL) {
    free(b);
    return error_new(TG_CODE_RESOURCE_EXHAUSTED, "buffer_alloc: out of host memory");
  }
  b->size = bytes;
  b->data = data;
  *out = b;
  return NULL;
}
static void buffer_free(tg_buffer* b) {
  if (b != NULL) free(b->data);
  free(b);
}
static int in_range(const tg_buffer* b, uint64_t off, uint64_t n) {
  return b != NULL && off <= b->size && n <= b->size - off;
}
static tg_error* copy_h2d(tg_stream* s, tg_buffer* dst, uint64_t off, const void* src, uint64_t n, tg_event** done) {
  if (s != NULL || src == NULL || !in_range(dst, off, n)) return error_new(TG_CODE_INVALID_ARGUMENT, "copy_h2d: bad range");
  uint64_t t = now_ns();
  memcpy(dst->data + off, src, n);
  return emit_event(done, t, now_ns(), TG_CODE_OK, NULL);
}
static tg_error* copy_d2h(tg_stream* s, void* dst, tg_buffer* src, uint64_t off, uint64_t n, tg_event** done) {
  if (s != NULL || dst == NULL || !in_range(src, off, n)) return error_new(TG_CODE_INVALID_ARGUMENT, "copy_d2h: bad range");
  uint64_t t = now_ns();
  memcpy(dst, src->data + off, n);
  return emit_event(done, t, now_ns(), TG_CODE_OK, NULL);
}
static tg_error* copy_d2d(tg_stream* s, tg_buffer* dst, uint64_t doff, tg_buffer* src, uint64_t soff, uint64_t n,
                          tg_event** done) {
  if (s != NULL || !in_range(dst, doff, n) || !in_range(src, soff, n)) {
    return error_new(TG_CODE_INVALID_ARGUMENT, "copy_d2d: bad range");
  }
  uint64_t t = now_ns();
  memmove(dst->data + doff, src->data + soff, n); /* may overlap within one buffer */
  return emit_event(done, t, now_ns(), TG_CODE_OK, NULL);
}

/* ---- programs ---- */
struct tg_program {
  tg_device* device;
  void* library;
  tg_c_kernel_fn fn;
};
static tg_error* program_compile(const tg_compile_args* a, tg_program** out) {
  if (a == NULL || out == NULL || !TG_HAS(a, tg_compile_args, entry) || a->device == NULL ||
      a->source == NULL || a->entry == NULL) {
    return error_new(TG_CODE_INVALID_ARGUMENT, "program_compile: device, source and entry are required");
  }
  if (a->dialect == NULL || strcmp(a->dialect, "c") != 0) {
    return error_new(TG_CODE_INVALID_ARGUMENT, "program_compile: ACME accepts only the \"c\" dialect");
  }
  tg_program* p = calloc(1, sizeof *p);
  if (p == NULL) return &g_no_memory;
  char* log = NULL;
  tg_code code = acme_compile(a->source, a->source_len, a->entry, &p->fn, &p->library, &log);
  if (code != TG_CODE_OK) {
    free(p);
    return error_take(code, log);
  }
  p->device = a->device;
  *out = p;
  return NULL;
}
static void program_destroy(tg_program* p) {
  if (p != NULL) dlclose(p->library);
  free(p);
}

/* ---- launch: every workgroup in turn on this thread ---- */
static void record_failure(tg_device* d, const char* message) {
  pthread_mutex_lock(&d->mu);
  if (d->pending_code == TG_CODE_OK) {
    d->pending_code = TG_CODE_INTERNAL;
    d->pending_message = strdup(message);
  }
  pthread_mutex_unlock(&d->mu);
}

static int32_t run_groups(const tg_launch_args* a, const tg_c_dispatch_state* ds) {
  tg_c_workgroup_state wg = {sizeof wg, {0, 0, 0}, 0};
  for (uint32_t z = 0; z < a->num_groups[2]; ++z)
    for (uint32_t y = 0; y < a->num_groups[1]; ++y)
      for (uint32_t x = 0; x < a->num_groups[0]; ++x) {
        wg.group_id[0] = x, wg.group_id[1] = y, wg.group_id[2] = z;
        int32_t rc = a->program->fn(ds, &wg);
        if (rc != 0) return rc;
      }
  return 0;
}

static tg_error* launch(const tg_launch_args* a) {
  if (a == NULL || !TG_HAS(a, tg_launch_args, out_done) || a->program == NULL || a->stream != NULL ||
      (a->num_args > 0 && a->args == NULL)) {
    return error_new(TG_CODE_INVALID_ARGUMENT, "launch: bad arguments (ACME has only the default stream)");
  }
  void* buffers[64];
  int64_t scalars[64];
  tg_c_dispatch_state ds = {sizeof ds, {0}, {0}, 0, 0, buffers, scalars};
  for (int d = 0; d < 3; ++d) {
    if (a->num_groups[d] == 0 || a->group_size[d] == 0) return error_new(TG_CODE_INVALID_ARGUMENT, "launch: zero size");
    ds.num_groups[d] = a->num_groups[d], ds.group_size[d] = a->group_size[d];
  }
  for (uint32_t i = 0; i < a->num_args; ++i) {
    const tg_arg* arg = &a->args[i];
    if (ds.num_buffers == 64 || ds.num_scalars == 64) return error_new(TG_CODE_INVALID_ARGUMENT, "launch: > 64 args");
    if (arg->kind == TG_ARG_BUFFER && in_range(arg->buffer, arg->offset, 0)) {
      buffers[ds.num_buffers++] = arg->buffer->data + arg->offset;
    } else if (arg->kind == TG_ARG_I32) {
      scalars[ds.num_scalars++] = (int32_t)arg->value; /* the "c" dialect widens i32 to i64 */
    } else if (arg->kind == TG_ARG_I64) {
      scalars[ds.num_scalars++] = arg->value;
    } else {
      return error_new(TG_CODE_INVALID_ARGUMENT, "launch: bad argument kind or buffer offset");
    }
  }
  uint64_t start = now_ns();
  int32_t rc = run_groups(a, &ds);
  uint64_t end = now_ns();
  if (rc != 0) record_failure(a->program->device, "kernel returned nonzero");
  return emit_event(a->out_done, start, end, rc == 0 ? TG_CODE_OK : TG_CODE_INTERNAL, "kernel returned nonzero");
}

/* Work is already done; what is left to report is the first kernel failure since the last sync. */
static tg_error* stream_sync(tg_device* d, tg_stream* s) {
  if (d == NULL || s != NULL) return error_new(TG_CODE_INVALID_ARGUMENT, "stream_sync: ACME has only the default stream");
  pthread_mutex_lock(&d->mu);
  tg_code code = d->pending_code;
  char* message = d->pending_message;
  d->pending_code = TG_CODE_OK;
  d->pending_message = NULL;
  pthread_mutex_unlock(&d->mu);
  return code == TG_CODE_OK ? NULL : error_take(code, message);
}

/* ---- the table: static, so it lives forever ---- */
static const tg_plugin_api kApi = {
    .struct_size = sizeof(tg_plugin_api),
    .abi_major = TG_ABI_MAJOR,
    .abi_minor = TG_ABI_MINOR,
    .plugin_name = "ACME",
    .plugin_version = "0.1.0",
    .error_code = error_code,
    .error_message = error_message,
    .error_destroy = error_destroy,
    .initialize = initialize,
    .shutdown = shutdown_plugin,
    .device_count = device_count,
    .device_open = device_open,
    .device_close = device_close,
    .device_props = device_props,
    .buffer_alloc = buffer_alloc,
    .buffer_free = buffer_free,
    .copy_h2d = copy_h2d,
    .copy_d2h = copy_d2h,
    .copy_d2d = copy_d2d,
    .program_compile = program_compile,
    .program_destroy = program_destroy,
    .launch = launch,
    .stream_sync = stream_sync,
    .event_wait = event_wait,
    .event_query = event_query,
    .event_destroy = event_destroy,
    .event_timing_ns = event_timing_ns,
};

TG_EXPORT const tg_plugin_api* tg_plugin_get_api(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor;
  return host_abi_major == TG_ABI_MAJOR ? &kApi : NULL;
}
