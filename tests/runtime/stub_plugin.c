/* stub_plugin.c: deliberately broken plugins, one per loader error path (docs/plugins.md).
 * Built once per STUB_* define (see BUILD.bazel); each variant breaks exactly one rule. */
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/abi/tg_plugin.h"

struct tg_error {
  tg_code code;
  const char* message;
};
__attribute__((unused)) static struct tg_error g_init_error = {TG_CODE_UNAVAILABLE, "stub: the driver exploded"};
static struct tg_error g_unimplemented = {TG_CODE_UNIMPLEMENTED, "stub: not implemented"};

static tg_code error_code(const tg_error* e) { return e->code; }
static const char* error_message(const tg_error* e) { return e->message; }
static void error_destroy(tg_error* e) { (void)e; }

static tg_error* initialize(const tg_host_services* h) {
  (void)h;
#if defined(STUB_SEGV_INIT)
  /* A driver that dereferences garbage: only `tg devices --probe` survives this plugin. */
  volatile int* volatile garbage = NULL;
  *garbage = 1;
  return NULL;
#elif defined(STUB_ABORT_INIT)
  abort(); /* a driver's failed assert() */
#elif defined(STUB_FAILING_INIT)
  return &g_init_error;
#else
  return NULL;
#endif
}
static void shutdown_fn(void) {}

static tg_error* device_count(uint32_t* n) {
#if defined(STUB_FAKE_DEVICE) || defined(STUB_LIMITED_MEMORY)
  *n = 1;
#else
  *n = 0;
#endif
  return NULL;
}
static const char* unavailable_reason(void) { return "stub: no hardware in this test"; }

/* STUB_FAKE_DEVICE: one device named ZETA with just enough props to be selected. */
static int g_device;
static const char* const kDialects[] = {"zeta-asm"};
static tg_error* device_open(uint32_t o, tg_device** out) {
  if (o != 0) return &g_unimplemented;
  *out = (tg_device*)&g_device;
  return NULL;
}
static void device_close(tg_device* d) { (void)d; }
static tg_error* device_props(tg_device* d, tg_device_props* p) {
  (void)d;
  if (TG_HAS(p, tg_device_props, name)) p->name = "Zeta accelerator";
#ifdef STUB_LIMITED_MEMORY
  if (TG_HAS(p, tg_device_props, global_mem_bytes)) p->global_mem_bytes = STUB_MEMORY_BYTES;
#endif
  if (TG_HAS(p, tg_device_props, source_dialects)) {
    p->num_source_dialects = 1;
    p->source_dialects = kDialects;
  }
  return NULL;
}
#ifdef STUB_LIMITED_MEMORY
/* STUB_LIMITED_MEMORY: a device of STUB_MEMORY_BYTES that really runs out: buffer_alloc past the
 * limit (counting live buffers) is RESOURCE_EXHAUSTED, as a GPU driver's would be. */
static struct tg_error g_oom = {TG_CODE_RESOURCE_EXHAUSTED, "stub: out of device memory"};
static uint64_t g_live_bytes;
struct tg_buffer {
  uint64_t bytes;
};
static tg_error* buffer_alloc(tg_device* d, uint64_t n, uint32_t f, tg_buffer** out) {
  (void)d, (void)f;
  if (n > STUB_MEMORY_BYTES - g_live_bytes) return &g_oom;
  tg_buffer* b = (tg_buffer*)malloc(sizeof *b);
  if (b == NULL) return &g_oom;
  b->bytes = n;
  g_live_bytes += n;
  *out = b;
  return NULL;
}
static void buffer_free(tg_buffer* b) {
  if (b == NULL) return;
  g_live_bytes -= b->bytes;
  free(b);
}
#else
static tg_error* buffer_alloc(tg_device* d, uint64_t n, uint32_t f, tg_buffer** out) {
  (void)d, (void)n, (void)f, (void)out;
  return &g_unimplemented;
}
static void buffer_free(tg_buffer* b) { (void)b; }
#endif
static tg_error* copy_h2d(tg_stream* s, tg_buffer* b, uint64_t o, const void* p, uint64_t n, tg_event** e) {
  (void)s, (void)b, (void)o, (void)p, (void)n, (void)e;
  return &g_unimplemented;
}
static tg_error* copy_d2h(tg_stream* s, void* p, tg_buffer* b, uint64_t o, uint64_t n, tg_event** e) {
  (void)s, (void)b, (void)o, (void)p, (void)n, (void)e;
  return &g_unimplemented;
}
static tg_error* program_compile(const tg_compile_args* a, tg_program** p) {
  (void)a, (void)p;
  return &g_unimplemented;
}
static void program_destroy(tg_program* p) { (void)p; }
static tg_error* launch(const tg_launch_args* a) {
  (void)a;
  return &g_unimplemented;
}
static tg_error* stream_sync(tg_device* d, tg_stream* s) {
  (void)d, (void)s;
  return NULL;
}
static tg_error* event_wait(tg_event* e, uint64_t t) {
  (void)e, (void)t;
  return NULL;
}
static tg_error* event_query(tg_event* e, uint32_t* done) {
  (void)e;
  *done = 1;
  return NULL;
}
static void event_destroy(tg_event* e) { (void)e; }

__attribute__((unused)) static tg_plugin_api g_api = {
    .struct_size = sizeof(tg_plugin_api),
    .abi_major = TG_ABI_MAJOR,
    .abi_minor = TG_ABI_MINOR,
    .plugin_name = STUB_NAME,
    .plugin_version = "0.0.1-stub",
    .error_code = error_code,
    .error_message = error_message,
    .error_destroy = error_destroy,
    .initialize = initialize,
    .shutdown = shutdown_fn,
    .device_count = device_count,
    .unavailable_reason = unavailable_reason,
    .device_open = device_open,
    .device_close = device_close,
    .device_props = device_props,
    .buffer_alloc = buffer_alloc,
    .buffer_free = buffer_free,
    .copy_h2d = copy_h2d,
    .copy_d2h = copy_d2h,
    .program_compile = program_compile,
    .program_destroy = program_destroy,
    .launch = launch,
    .stream_sync = stream_sync,
    .event_wait = event_wait,
    .event_query = event_query,
    .event_destroy = event_destroy,
};

#ifdef STUB_MISSING_ENTRY
/* Exports a differently named function instead of tg_plugin_get_api. */
TG_EXPORT const tg_plugin_api* tg_plugin_get_api_v0(void) { return &g_api; }
#else
TG_EXPORT const tg_plugin_api* tg_plugin_get_api(uint32_t major, uint32_t minor) {
  (void)major, (void)minor;
#if defined(STUB_NULL_TABLE)
  return NULL;
#else
#if defined(STUB_WRONG_MAJOR)
  g_api.abi_major = TG_ABI_MAJOR + 1; /* and it ignores the host's major, against the rules */
#elif defined(STUB_SHORT_STRUCT)
  g_api.struct_size = TG_SIZE_TO(tg_plugin_api, launch);
#elif defined(STUB_NULL_REQUIRED)
  g_api.program_compile = NULL;
  g_api.launch = NULL;
#endif
  return &g_api;
#endif
}
#endif
