/* broken_props_plugin.c: a plugin with one bug the CTS must catch: device_props writes the whole
 * tg_device_props whatever struct_size the host passed (an older host's memory gets trampled).
 * Everything else is the minimum the loader accepts; the CTS test runs only the Abi.* cases. */
#include <stdlib.h>
#include <string.h>

#include "plugins/abi/tg_plugin.h"

struct tg_error {
  tg_code code;
};
struct tg_device {
  int unused;
};

static tg_error* make_error(tg_code code) {
  tg_error* e = malloc(sizeof *e);
  if (e != NULL) e->code = code;
  return e;
}
static tg_code error_code(const tg_error* e) { return e->code; }
static const char* error_message(const tg_error* e) { (void)e; return "broken: refused"; }
static void error_destroy(tg_error* e) { free(e); }
static tg_error* initialize(const tg_host_services* h) { (void)h; return NULL; }
static void shutdown_plugin(void) {}
static tg_error* device_count(uint32_t* n) { *n = 1; return NULL; }
static tg_device g_device;
static tg_error* device_open(uint32_t ordinal, tg_device** out) {
  if (ordinal != 0) return make_error(TG_CODE_NOT_FOUND);
  *out = &g_device;
  return NULL;
}
static void device_close(tg_device* d) { (void)d; }
/* The one dialect it declares: "c", or what the build passes (a dialect the CTS has no kernels for). */
#ifndef DECLARED_DIALECT
#define DECLARED_DIALECT "c"
#endif
static const char* const kDialects[] = {DECLARED_DIALECT};

/* THE BUG: memcpy of sizeof(tg_device_props), ignoring inout->struct_size. */
static tg_error* device_props(tg_device* d, tg_device_props* inout) {
  (void)d;
  tg_device_props p;
  memset(&p, 0, sizeof p);
  p.struct_size = inout->struct_size;
  p.name = p.vendor = p.arch = p.compile_fingerprint = "broken";
  p.min_offset_align = 1;
  p.max_group_size[0] = p.max_group_size[1] = p.max_group_size[2] = p.max_group_threads = 1;
  p.num_source_dialects = 1;
  p.source_dialects = kDialects;
  memcpy(inout, &p, sizeof p);
  return NULL;
}

static tg_error* unimplemented(void) { return make_error(TG_CODE_UNIMPLEMENTED); }
static tg_error* buffer_alloc(tg_device* d, uint64_t n, uint32_t f, tg_buffer** b) {
  (void)d, (void)n, (void)f, (void)b;
  return unimplemented();
}
static void buffer_free(tg_buffer* b) { (void)b; }
static tg_error* copy_h2d(tg_stream* s, tg_buffer* b, uint64_t o, const void* p, uint64_t n, tg_event** e) {
  (void)s, (void)b, (void)o, (void)p, (void)n, (void)e;
  return unimplemented();
}
static tg_error* copy_d2h(tg_stream* s, void* p, tg_buffer* b, uint64_t o, uint64_t n, tg_event** e) {
  (void)s, (void)b, (void)o, (void)p, (void)n, (void)e;
  return unimplemented();
}
static tg_error* program_compile(const tg_compile_args* a, tg_program** p) { (void)a, (void)p; return unimplemented(); }
static void program_destroy(tg_program* p) { (void)p; }
static tg_error* launch(const tg_launch_args* a) { (void)a; return unimplemented(); }
static tg_error* stream_sync(tg_device* d, tg_stream* s) { (void)d, (void)s; return NULL; }
static tg_error* event_wait(tg_event* e, uint64_t t) { (void)e, (void)t; return NULL; }
static tg_error* event_query(tg_event* e, uint32_t* done) { (void)e; *done = 1; return NULL; }
static void event_destroy(tg_event* e) { (void)e; }

static const tg_plugin_api kApi = {
    .struct_size = sizeof(tg_plugin_api), .abi_major = TG_ABI_MAJOR, .abi_minor = TG_ABI_MINOR,
    .plugin_name = "BROKENPROPS", .plugin_version = "0.0.1",
    .error_code = error_code, .error_message = error_message, .error_destroy = error_destroy,
    .initialize = initialize, .shutdown = shutdown_plugin, .device_count = device_count,
    .device_open = device_open, .device_close = device_close, .device_props = device_props,
    .buffer_alloc = buffer_alloc, .buffer_free = buffer_free, .copy_h2d = copy_h2d,
    .copy_d2h = copy_d2h, .program_compile = program_compile, .program_destroy = program_destroy,
    .launch = launch, .stream_sync = stream_sync, .event_wait = event_wait,
    .event_query = event_query, .event_destroy = event_destroy,
};

TG_EXPORT const tg_plugin_api* tg_plugin_get_api(uint32_t major, uint32_t minor) {
  (void)minor;
  return major == TG_ABI_MAJOR ? &kApi : NULL;
}
