/* SPDX-License-Identifier: Apache-2.0 */
/* null_plugin.c: THE template for a third-party tinygrad-cc device plugin.
 *
 * This plugin does nothing on purpose: it loads, reports zero devices with a reason, and answers
 * every REQUIRED function with UNIMPLEMENTED. Copy this folder, rename it (see README.md), and fill
 * the functions in one at a time; the host keeps working at every step, because a NULL OPTIONAL
 * function or an UNIMPLEMENTED answer is always allowed.
 *
 * It is written in C11 against plugins/abi/tg_plugin.h alone, to show that a plugin needs nothing
 * else of ours. A C++ plugin works the same; it must then catch every exception in every entry
 * point and return TG_CODE_INTERNAL instead (see plugins/cpu/cpu_error.h for a Guard helper).
 */
#include <stdlib.h>
#include <string.h>

#include "plugins/abi/tg_plugin.h"

/* Hidden by -fvisibility=hidden and the version script: only tg_plugin_get_api is exported, so
 * your internal names can never clash with the host's or another plugin's. */
#define NULLP_NAME "NULL" /* your device prefix, upper case: users write NULL, NULL:1 */

/* ---- Errors --------------------------------------------------------------------------------
 * The ABI leaves tg_error opaque: define it however you like. The host reads it only through
 * error_code / error_message and frees it through error_destroy. */
struct tg_error {
  tg_code code;
  char* message;
};

/* Returned when malloc fails, so an error can always be reported; never freed. */
static struct tg_error g_out_of_memory = {TG_CODE_RESOURCE_EXHAUSTED, (char*)"null: out of memory"};

static tg_error* make_error(tg_code code, const char* message) {
  tg_error* e = (tg_error*)malloc(sizeof *e);
  if (e == NULL) return &g_out_of_memory;
  e->code = code;
  size_t len = strlen(message) + 1; /* put the plugin name in messages: users see several plugins */
  e->message = (char*)malloc(len);
  if (e->message != NULL) memcpy(e->message, message, len);
  if (e->message == NULL) {
    free(e);
    return &g_out_of_memory;
  }
  return e;
}

static tg_code error_code(const tg_error* e) { return e != NULL ? e->code : TG_CODE_OK; }
static const char* error_message(const tg_error* e) { return e != NULL ? e->message : ""; }
static void error_destroy(tg_error* e) {
  if (e == NULL || e == &g_out_of_memory) return;
  free(e->message);
  free(e);
}

static tg_error* unimplemented(const char* function) {
  char buf[128];
  strcpy(buf, "null: ");
  strncat(buf, function, sizeof buf - strlen(buf) - 20);
  strcat(buf, " is not implemented");
  return make_error(TG_CODE_UNIMPLEMENTED, buf);
}

/* ---- Lifetime -------------------------------------------------------------------------------
 * initialize must be cheap and must succeed when your driver is missing: dlopen your driver here
 * or lazily, and when it is absent report zero devices plus a reason, never an error. Keep a
 * reference count; each successful initialize is balanced by one shutdown. */
static int g_init_count = 0; /* a real plugin guards this with a mutex or an atomic */

static tg_error* initialize(const tg_host_services* host) {
  (void)host; /* read host->log only if TG_HAS(host, tg_host_services, log) */
  ++g_init_count;
  return NULL;
}
static void plugin_shutdown(void) { --g_init_count; }

/* ---- Devices --------------------------------------------------------------------------------- */
static tg_error* device_count(uint32_t* out_count) {
  if (out_count == NULL) return make_error(TG_CODE_INVALID_ARGUMENT, "null: device_count: NULL out_count");
  *out_count = 0; /* zero devices is how a plugin says "nothing here", not an error */
  return NULL;
}

/* Shown by `tg devices` and in "unknown device" errors: say what the user should install or fix. */
static const char* unavailable_reason(void) {
  return "the null plugin is a template and never has devices";
}

static tg_error* device_open(uint32_t ordinal, tg_device** out_device) {
  (void)ordinal;
  (void)out_device;
  return make_error(TG_CODE_NOT_FOUND, "null: device_open: the null plugin has no devices");
}
static void device_close(tg_device* device) { (void)device; }
/* Write only within inout->struct_size: a host built for an older minor passes a shorter struct. */
static tg_error* device_props(tg_device* device, tg_device_props* inout) {
  (void)device;
  (void)inout;
  return unimplemented("device_props");
}

/* ---- Memory ----------------------------------------------------------------------------------- */
static tg_error* buffer_alloc(tg_device* d, uint64_t bytes, uint32_t flags, tg_buffer** out) {
  (void)d, (void)bytes, (void)flags, (void)out;
  return unimplemented("buffer_alloc");
}
static void buffer_free(tg_buffer* b) { (void)b; }
static tg_error* copy_h2d(tg_stream* s, tg_buffer* dst, uint64_t off, const void* src, uint64_t n,
                          tg_event** done) {
  (void)s, (void)dst, (void)off, (void)src, (void)n, (void)done;
  return unimplemented("copy_h2d");
}
static tg_error* copy_d2h(tg_stream* s, void* dst, tg_buffer* src, uint64_t off, uint64_t n,
                          tg_event** done) {
  (void)s, (void)dst, (void)src, (void)off, (void)n, (void)done;
  return unimplemented("copy_d2h");
}

/* ---- Programs and launches -------------------------------------------------------------------
 * program_compile: put the full build log in the error message on failure. */
static tg_error* program_compile(const tg_compile_args* args, tg_program** out) {
  (void)args, (void)out;
  return unimplemented("program_compile");
}
static void program_destroy(tg_program* p) { (void)p; }
static tg_error* launch(const tg_launch_args* args) {
  (void)args;
  return unimplemented("launch");
}

/* ---- Streams and events ---------------------------------------------------------------------- */
static tg_error* stream_sync(tg_device* d, tg_stream* s) {
  (void)d, (void)s;
  return unimplemented("stream_sync");
}
static tg_error* event_wait(tg_event* e, uint64_t timeout_ns) {
  (void)e, (void)timeout_ns;
  return unimplemented("event_wait");
}
static tg_error* event_query(tg_event* e, uint32_t* out_done) {
  (void)e, (void)out_done;
  return unimplemented("event_query");
}
static void event_destroy(tg_event* e) { (void)e; }

/* ---- The table ---------------------------------------------------------------------------------
 * Static storage, never freed. Designated initializers leave every unnamed field NULL: each NULL
 * below is an OPTIONAL function the host replaces with its fallback. Set struct_size to
 * sizeof(tg_plugin_api) as YOU were built; the host tests fields against it. */
static const tg_plugin_api kApi = {
    .struct_size = sizeof(tg_plugin_api),
    .abi_major = TG_ABI_MAJOR,
    .abi_minor = TG_ABI_MINOR,
    .plugin_name = NULLP_NAME,
    .plugin_version = "1.0.0",
    .error_code = error_code,
    .error_message = error_message,
    .error_destroy = error_destroy,
    .initialize = initialize,
    .shutdown = plugin_shutdown,
    .device_count = device_count,
    .unavailable_reason = unavailable_reason,
    .device_open = device_open,
    .device_close = device_close,
    .device_props = device_props,
    .buffer_alloc = buffer_alloc,
    .buffer_free = buffer_free,
    .copy_h2d = copy_h2d,
    .copy_d2h = copy_d2h,
    .copy_d2d = NULL,        /* OPTIONAL: host stages through copy_d2h + copy_h2d */
    .program_compile = program_compile,
    .program_load = NULL,    /* OPTIONAL: host compiles from source every process */
    .program_binary = NULL,  /* OPTIONAL: nothing cached on disk */
    .program_destroy = program_destroy,
    .launch = launch,
    .stream_create = NULL,   /* OPTIONAL: everything runs on the default stream */
    .stream_destroy = NULL,
    .stream_wait_event = NULL,
    .stream_sync = stream_sync,
    .event_wait = event_wait,
    .event_query = event_query,
    .event_destroy = event_destroy,
    .event_timing_ns = NULL, /* OPTIONAL: host times with its own clock */
    .extensions = NULL,
    /* ABI 1.1 */
    .event_record = NULL,      /* OPTIONAL: host orders work between devices with stream_sync */
    .device_wait_event = NULL, /* OPTIONAL: host waits with event_wait */
    .host_alloc = NULL,        /* OPTIONAL: uploads copy synchronously from the caller's memory */
    .host_free = NULL,
};

/* The one exported symbol. Do no hardware work here (the host may call it just to list plugins).
 * Return NULL only when the host's major differs from yours. */
TG_EXPORT const tg_plugin_api* tg_plugin_get_api(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor; /* a newer plugin would avoid host services newer than this minor */
  return host_abi_major == TG_ABI_MAJOR ? &kApi : NULL;
}
