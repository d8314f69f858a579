/* SPDX-License-Identifier: Apache-2.0 */
/* tg_plugin.h: the device-plugin ABI of tinygrad-cc, version 1.1.
 *
 * The only contract between the tinygrad-cc host and a device plugin. A plugin is a shared object
 * built against this header alone (C11, no other include of ours) that exports exactly one symbol,
 * tg_plugin_get_api. Read top to bottom: versioning, errors, devices, buffers, programs, launches,
 * streams and events, then the calling convention of the "c" source dialect.
 *
 * VERSIONING
 *   - The host loads a plugin only when TG_ABI_MAJOR matches. Within a major, everything grows by
 *     appending: fields at the end of structs, functions at the end of tg_plugin_api, flag bits.
 *     Nothing new ever becomes REQUIRED within a major.
 *   - Every struct that can grow starts with `uint64_t struct_size`, set by whoever allocates it to
 *     sizeof(the struct as it knows it). Readers test a field with TG_HAS(ptr, Type, field), never
 *     with `==` on sizes. A field beyond the writer's struct_size reads as zero / NULL / default, so
 *     callers zero-initialize argument structs ({0} or memset) before setting struct_size.
 *   - In/out structs (tg_device_props) are written by the plugin only within the host's struct_size.
 *
 * THREADING AND OWNERSHIP
 *   - Every function may be called from any thread. The host serializes the calls that enqueue work
 *     on one stream; everything else must be thread-safe in the plugin.
 *   - Handles are opaque and owned by the plugin. Strings returned by the plugin live as long as the
 *     object that returned them (props strings: until device_close; api strings: forever).
 *   - The plugin creates tg_error and tg_event objects; the host destroys them through this table.
 *   - No C++ exception, longjmp or abort may cross this boundary: every entry point catches what its
 *     implementation throws and returns a TG_CODE_INTERNAL error instead.
 *
 * REQUIRED / OPTIONAL
 *   Each function pointer below is marked. REQUIRED ones must be non-NULL or the host refuses the
 *   plugin, naming the missing functions. An OPTIONAL one may be NULL (= unimplemented); its comment
 *   names the host's fallback. A function may also exist and return TG_CODE_UNIMPLEMENTED.
 */
#ifndef TG_PLUGIN_H_
#define TG_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TG_ABI_MAJOR 1
#define TG_ABI_MINOR 1

/* Size of struct T up to and including field f: what a writer that knew only up to f would set. */
#define TG_SIZE_TO(T, f) (offsetof(T, f) + sizeof(((T*)0)->f))
/* Whether the struct at p (with its struct_size) contains field f of type T. */
#define TG_HAS(p, T, f) ((p) != NULL && (p)->struct_size >= TG_SIZE_TO(T, f))

#if defined(_WIN32)
#define TG_EXPORT __declspec(dllexport)
#else
#define TG_EXPORT __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------------------------------------
 * Errors. NULL means success. Codes are absl::StatusCode numbers.
 * ------------------------------------------------------------------------------------------- */
typedef uint32_t tg_code;
#define TG_CODE_OK 0u
#define TG_CODE_CANCELLED 1u
#define TG_CODE_UNKNOWN 2u
#define TG_CODE_INVALID_ARGUMENT 3u    /* the caller passed something this plugin never accepts */
#define TG_CODE_DEADLINE_EXCEEDED 4u   /* event_wait timed out; the work goes on */
#define TG_CODE_NOT_FOUND 5u           /* no such device ordinal, no such entry point */
#define TG_CODE_RESOURCE_EXHAUSTED 8u  /* out of device memory */
#define TG_CODE_FAILED_PRECONDITION 9u /* program_load: stale or foreign binary; recompile */
#define TG_CODE_ABORTED 10u            /* the device faulted; reopen it */
#define TG_CODE_UNIMPLEMENTED 12u
#define TG_CODE_INTERNAL 13u
#define TG_CODE_UNAVAILABLE 14u        /* driver or device missing */

typedef struct tg_error tg_error;

/* A message (error_message, unavailable_reason, the log service's) ends with its NUL within this many
 * bytes; the host reads no further and shows a longer one as unreadable. A long compiler log is cut to
 * fit by the plugin, keeping its start, where the first error is. */
#define TG_MAX_MESSAGE_BYTES 4096u

/* ---------------------------------------------------------------------------------------------
 * Opaque handles, all owned by the plugin.
 * ------------------------------------------------------------------------------------------- */
typedef struct tg_device tg_device;   /* an opened device; lives until device_close */
typedef struct tg_buffer tg_buffer;   /* device memory; lives until buffer_free */
typedef struct tg_program tg_program; /* a loaded kernel (one entry point); until program_destroy */
typedef struct tg_stream tg_stream;   /* an in-order queue; NULL everywhere = the default stream */
typedef struct tg_event tg_event;     /* completion of enqueued work; until event_destroy */

/* ---------------------------------------------------------------------------------------------
 * Extensions: a chain matched by name string ("vendor.feature") and version, never by a central
 * enum, so a vendor adds "acme.*" without asking. Reserved prefix: "tg.". The same chain type is
 * accepted per call through the `ext` field of argument structs. Unknown names are ignored.
 * ------------------------------------------------------------------------------------------- */
typedef struct tg_ext {
  uint64_t struct_size;
  const char* name;          /* e.g. "tg.memory_stats" */
  uint32_t version;
  uint32_t reserved;
  const struct tg_ext* next; /* NULL ends the chain */
  /* the extension's own fields follow */
} tg_ext;

/* ---------------------------------------------------------------------------------------------
 * Host services, given to initialize(). The plugin must not call a member it does not TG_HAS.
 * ------------------------------------------------------------------------------------------- */
#define TG_LOG_ERROR 0
#define TG_LOG_WARNING 1
#define TG_LOG_INFO 2
#define TG_LOG_DEBUG 3
typedef struct tg_host_services {
  uint64_t struct_size;
  uint32_t abi_major, abi_minor;                            /* the host's version */
  void (*log)(void* ctx, int32_t level, const char* message); /* may be NULL */
  void* log_ctx;
} tg_host_services;

/* ---------------------------------------------------------------------------------------------
 * Device properties (in/out: the host sets struct_size and zeroes the rest; the plugin fills
 * what fits). Strings and arrays live until device_close.
 * ------------------------------------------------------------------------------------------- */
#define TG_CAP_FP16 (1u << 0)
#define TG_CAP_BF16 (1u << 1)
#define TG_CAP_FP64 (1u << 2)
#define TG_CAP_INT64_ATOMICS (1u << 3)
#define TG_CAP_TIMING (1u << 4)         /* event_timing_ns works for TG_LAUNCH_PROFILE launches */
#define TG_CAP_UNIFIED_MEMORY (1u << 5) /* buffers are host-addressable */

/* What kind of processor a device is. The host's automatic device choice prefers GPUs and
 * accelerators, then devices of unknown type, then CPUs (its own CPU plugin first). */
#define TG_DEVICE_TYPE_CPU 1u
#define TG_DEVICE_TYPE_GPU 2u
#define TG_DEVICE_TYPE_ACCELERATOR 3u

typedef struct tg_device_props {
  uint64_t struct_size;
  const char* name;                /* "AMD EPYC 9B45 (avx512)", "NVIDIA H200" */
  const char* vendor;              /* "AMD", "NVIDIA", "pocl" */
  const char* arch;                /* "x86_64-avx3_dl", "sm_90", "gfx1100" */
  const char* compile_fingerprint; /* changes whenever compiled binaries would: arch + driver + compiler */
  uint64_t global_mem_bytes;
  uint64_t max_alloc_bytes;
  uint64_t local_mem_bytes;        /* per workgroup; 0 = none */
  uint64_t min_offset_align;       /* launch buffer offsets are multiples of this (>= 1) */
  uint32_t max_group_size[3];      /* per dimension */
  uint32_t max_group_threads;      /* product limit */
  uint32_t preferred_vector_width; /* float32 lanes the device likes per operation */
  uint32_t compute_units;          /* cores / SMs / CUs */
  uint32_t caps;                   /* TG_CAP_* bits */
  uint32_t num_source_dialects;
  const char* const* source_dialects; /* "c", "opencl-c", "cuda-c", "hip-c", "llvm-ir", "ptx" */
  uint32_t num_binary_formats;
  uint32_t reserved0;
  const char* const* binary_formats;  /* "elf-so", "cubin", "hsaco", ... */
  uint32_t device_type;               /* TG_DEVICE_TYPE_*; 0 = unknown */
  uint32_t reserved1;
} tg_device_props;

/* ---------------------------------------------------------------------------------------------
 * Programs.
 * ------------------------------------------------------------------------------------------- */
typedef struct tg_compile_args {
  uint64_t struct_size;
  const tg_ext* ext;
  tg_device* device;
  const char* dialect;  /* one of the device's source_dialects */
  const char* source;   /* not necessarily NUL-terminated */
  uint64_t source_len;
  const char* entry;    /* the kernel function's name */
  const char* options;  /* plugin-specific compiler options; NULL = none */
} tg_compile_args;

/* ---------------------------------------------------------------------------------------------
 * Launches. The grid is counted in WORKGROUPS: work items = num_groups * group_size per dimension.
 * ------------------------------------------------------------------------------------------- */
#define TG_ARG_BUFFER 1u
#define TG_ARG_I32 2u
#define TG_ARG_I64 3u
typedef struct tg_arg {
  uint32_t kind; /* TG_ARG_* */
  uint32_t reserved;
  tg_buffer* buffer; /* TG_ARG_BUFFER */
  uint64_t offset;   /* TG_ARG_BUFFER: bytes, a multiple of min_offset_align */
  int64_t value;     /* TG_ARG_I32 (low 32 bits) / TG_ARG_I64 */
} tg_arg;

#define TG_LAUNCH_PROFILE (1u << 0) /* record device-clock start/end for event_timing_ns */

typedef struct tg_launch_args {
  uint64_t struct_size;
  const tg_ext* ext;
  tg_stream* stream; /* NULL = the device's default stream */
  tg_program* program;
  uint32_t num_groups[3];
  uint32_t group_size[3];
  const tg_arg* args; /* in the kernel's parameter order */
  uint32_t num_args;
  uint32_t flags;     /* TG_LAUNCH_* */
  tg_event** out_done; /* NULL = no event wanted; else receives an event the host destroys */
} tg_launch_args;

/* ---------------------------------------------------------------------------------------------
 * The function table. Returned by tg_plugin_get_api; lives forever (static storage).
 * ------------------------------------------------------------------------------------------- */
typedef struct tg_plugin_api {
  uint64_t struct_size;   /* sizeof(tg_plugin_api) as the plugin was built */
  uint32_t abi_major;     /* TG_ABI_MAJOR the plugin was built with */
  uint32_t abi_minor;
  const char* plugin_name;    /* device name prefix, upper case: "CPU", "OPENCL", "ACME" */
  const char* plugin_version; /* free-form: "0.3.1+g1a2b" */

  /* -- errors (REQUIRED) -- */
  tg_code (*error_code)(const tg_error* error);
  const char* (*error_message)(const tg_error* error); /* lives until error_destroy */
  void (*error_destroy)(tg_error* error);

  /* -- lifetime (REQUIRED) --
   * initialize: reference counted; each successful call is balanced by one shutdown. Cheap and safe
   * when the driver is missing: a missing driver is NOT an error here, it is device_count == 0.
   * |host| may be NULL. Returns an error only when the plugin cannot work at all. */
  tg_error* (*initialize)(const tg_host_services* host);
  void (*shutdown)(void);

  /* -- devices (REQUIRED) -- */
  tg_error* (*device_count)(uint32_t* out_count);
  /* Why there are zero devices ("libcuda.so.1: cannot open shared object file"), or NULL when
   * there are devices. OPTIONAL; host fallback: no reason shown. Lives forever. */
  const char* (*unavailable_reason)(void);
  tg_error* (*device_open)(uint32_t ordinal, tg_device** out_device); /* NOT_FOUND past the count */
  void (*device_close)(tg_device* device); /* frees what the device still owns */
  tg_error* (*device_props)(tg_device* device, tg_device_props* inout_props);

  /* -- memory (REQUIRED except copy_d2d) --
   * buffer_alloc: |bytes| == 0 is INVALID_ARGUMENT; too large is RESOURCE_EXHAUSTED. |flags| is 0
   * in 1.0. Contents are undefined. buffer_free is safe with pending work (the plugin defers).
   * Copies with |done| == NULL are synchronous for host memory: on return |src| has been read or
   * |dst| written. With |done| != NULL the host keeps that memory alive and unchanged until the
   * event completes. Ranges outside the buffer are INVALID_ARGUMENT. */
  tg_error* (*buffer_alloc)(tg_device* device, uint64_t bytes, uint32_t flags, tg_buffer** out_buffer);
  void (*buffer_free)(tg_buffer* buffer);
  tg_error* (*copy_h2d)(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, const void* src,
                        uint64_t bytes, tg_event** done);
  tg_error* (*copy_d2h)(tg_stream* stream, void* dst, tg_buffer* src, uint64_t src_offset,
                        uint64_t bytes, tg_event** done);
  /* OPTIONAL; fallback: staged through host memory with copy_d2h + copy_h2d. Both buffers belong
   * to this plugin (one or two of its devices); ranges may overlap only within one buffer. */
  tg_error* (*copy_d2d)(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, tg_buffer* src,
                        uint64_t src_offset, uint64_t bytes, tg_event** done);

  /* -- programs --
   * program_compile (REQUIRED): on a failed compile the error's message holds the full build log.
   * It may be called from several threads at once, for different sources or the same one, on one
   * device or several: the host compiles the new kernels of a schedule side by side, one thread per
   * core. Each call returns its own program. A plugin whose compiler cannot run concurrently
   * serializes inside (a lock around the part that cannot), never by failing. program_load and
   * program_binary may likewise be called concurrently (program_binary on one program too).
   * program_load (OPTIONAL; fallback: compile from source every process): loads a binary produced
   * by program_binary; FAILED_PRECONDITION means stale or foreign: the host recompiles.
   * A truncated or corrupted binary of a known format must return FAILED_PRECONDITION, never crash.
   * program_binary (OPTIONAL; fallback: nothing is cached on disk): the bytes stay valid until
   * program_destroy. program_destroy (REQUIRED) is safe with pending launches. */
  tg_error* (*program_compile)(const tg_compile_args* args, tg_program** out_program);
  tg_error* (*program_load)(tg_device* device, const char* format, const void* binary,
                            uint64_t binary_len, const char* entry, tg_program** out_program);
  tg_error* (*program_binary)(tg_program* program, const char** out_format,
                              const void** out_binary, uint64_t* out_len);
  void (*program_destroy)(tg_program* program);

  /* -- launch (REQUIRED): enqueues; errors of the running kernel surface at event_wait or
   * stream_sync. Buffers passed must stay alive until the work completes. */
  tg_error* (*launch)(const tg_launch_args* args);

  /* -- streams (OPTIONAL; fallback: everything on the default stream) --
   * A stream belongs to the device it was created on; every call that enqueues (launch, copies,
   * event_record) takes a stream of that device or NULL. Streams give order, not necessarily
   * concurrency: a plugin may run all streams of a device on one queue. stream_destroy waits for the
   * stream's work. stream_wait_event is device_wait_event (below) for a created stream. */
  tg_error* (*stream_create)(tg_device* device, tg_stream** out_stream);
  void (*stream_destroy)(tg_stream* stream);
  tg_error* (*stream_wait_event)(tg_stream* stream, tg_event* event);
  /* stream_sync (REQUIRED): waits for all work on |stream| (NULL = default stream of |device|) and
   * returns the first asynchronous error of that work. */
  tg_error* (*stream_sync)(tg_device* device, tg_stream* stream);

  /* -- events (REQUIRED except event_timing_ns) -- */
  tg_error* (*event_wait)(tg_event* event, uint64_t timeout_ns); /* UINT64_MAX = forever; returns
                                                                     the work's async error */
  tg_error* (*event_query)(tg_event* event, uint32_t* out_done);
  void (*event_destroy)(tg_event* event);
  /* OPTIONAL (device caps has TG_CAP_TIMING); fallback: host wall-clock around a synchronous
   * launch. Device-clock nanoseconds of a TG_LAUNCH_PROFILE launch; only end - start is portable. */
  tg_error* (*event_timing_ns)(tg_event* event, uint64_t* out_start, uint64_t* out_end);

  /* -- extensions: NULL or a chain of tg_ext the plugin supports. -- */
  const tg_ext* extensions;
  /* ---- ABI 1.x additions go strictly below this line, each OPTIONAL ---- */

  /* -- 1.1: ordering between devices, page-locked host memory (read them with TG_HAS) --
   * event_record (OPTIONAL; host fallback: stream_sync where later work must follow this work): an
   * event that completes when everything enqueued on |stream| (NULL = the default stream of
   * |device|) before this call has completed.
   * device_wait_event (OPTIONAL with event_record; fallback: event_wait on the host): work enqueued
   * on |stream| of |device| (NULL = its default stream, which stream_wait_event cannot name) after
   * this call starts only once |event|, from any device of this plugin, has completed; the caller
   * does not block, and may destroy |event| as soon as this returns. UNIMPLEMENTED for an event the
   * device cannot wait for (the host then waits with event_wait).
   * Together they let one device's queue follow another's work while the host goes on enqueueing:
   * the host orders a copy_d2d between two devices with them (the copy, enqueued on the
   * destination, waits for the source's writers; the source's later work waits for the copy), so
   * copy_d2d itself need not wait for the source device when the plugin has both.
   * host_alloc (OPTIONAL; fallback: copies from the caller's pageable memory): |bytes| of host
   * memory that this plugin's copies read and write asynchronously (page-locked and mapped for
   * DMA, as cuMemHostAlloc gives). The host stages uploads in it and lets copy_h2d run behind its
   * back (with a done event) instead of waiting for each one. RESOURCE_EXHAUSTED when no more can
   * be locked. host_free (REQUIRED with host_alloc) is called only after the copies that used the
   * memory have completed. */
  tg_error* (*event_record)(tg_device* device, tg_stream* stream, tg_event** out_event);
  tg_error* (*device_wait_event)(tg_device* device, tg_stream* stream, tg_event* event);
  tg_error* (*host_alloc)(tg_device* device, uint64_t bytes, void** out_ptr);
  void (*host_free)(tg_device* device, void* ptr);
} tg_plugin_api;

/* The one exported symbol. Pure and cheap: no driver calls, no allocation that can fail. Returns
 * the plugin's table, or NULL only when |host_abi_major| differs from the plugin's TG_ABI_MAJOR.
 * The plugin may read |host_abi_minor| to avoid host services the host lacks. */
typedef const tg_plugin_api* (*tg_plugin_get_api_fn)(uint32_t host_abi_major, uint32_t host_abi_minor);
TG_EXPORT const tg_plugin_api* tg_plugin_get_api(uint32_t host_abi_major, uint32_t host_abi_minor);
#define TG_PLUGIN_ENTRY_SYMBOL "tg_plugin_get_api"

/* ---------------------------------------------------------------------------------------------
 * Source dialects other than "c" (names are exact, lower case).
 *
 *   "opencl-c"  OpenCL C 1.2: one __kernel function named |entry|.
 *   "cuda-c"    CUDA C++ for NVRTC: one extern "C" __global__ function named |entry|.
 *   "hip-c"     HIP C++ for hiprtc: one extern "C" __global__ function named |entry|.
 *   "ptx"       PTX text with one .entry named |entry| (parameters as for cuda-c).
 *   "llvm-ir"   LLVM IR text defining |entry| with the "c" dialect's signature.
 *
 * For the GPU dialects the kernel's parameters are the launch's tg_arg list in order: a buffer is a
 * global pointer (the plugin applies the offset), TG_ARG_I32 an int, TG_ARG_I64 a long / long long.
 * The plugin launches num_groups[d] * group_size[d] work items per dimension d, in groups of
 * group_size (OpenCL: global size = num_groups * group_size; CUDA/HIP: grid = num_groups, block =
 * group_size), so the ids a kernel reads (get_group_id / blockIdx, get_local_id / threadIdx) mean
 * the same thing on every device.
 * ------------------------------------------------------------------------------------------- */

/* ---------------------------------------------------------------------------------------------
 * The "c" source dialect (CPU plugins).
 *
 * Source is C11 with <stdint.h>, <stddef.h> and <math.h> available. The entry point has the type
 * tg_c_kernel_fn and is called once per workgroup, from any thread, with group_id set; the kernel
 * itself loops over the group_size work items of its group, so the plugin owns threading. Buffer
 * arguments arrive in `buffers` (base pointer with the launch offset applied) and scalar arguments
 * in `scalars` (i32 widened to i64), each in parameter order. The kernel returns 0, or a nonzero
 * code that the plugin reports as INTERNAL at the next wait. A kernel source may declare these
 * structs itself: the layout below is part of the ABI.
 * ------------------------------------------------------------------------------------------- */
#define TG_C_DISPATCH_STATE_FIELDS \
  uint64_t struct_size;            \
  uint32_t num_groups[3];          \
  uint32_t group_size[3];          \
  uint32_t num_buffers;            \
  uint32_t num_scalars;            \
  void* const* buffers;            \
  const int64_t* scalars;
#define TG_C_WORKGROUP_STATE_FIELDS \
  uint64_t struct_size;             \
  uint32_t group_id[3];             \
  uint32_t worker_id; /* 0 .. plugin threads - 1: an index for per-thread scratch */
typedef struct tg_c_dispatch_state { TG_C_DISPATCH_STATE_FIELDS } tg_c_dispatch_state;
typedef struct tg_c_workgroup_state { TG_C_WORKGROUP_STATE_FIELDS } tg_c_workgroup_state;

/* The two declarations above as C source text, for code generators to put at the top of a kernel
 * (one definition of the layout, so generated kernels cannot drift from it). */
#define TG_STRINGIFY_(x) #x
#define TG_STRINGIFY(x) TG_STRINGIFY_(x)
#define TG_C_DIALECT_PRELUDE                                                                    \
  "#include <stdint.h>\n#include <stddef.h>\n#include <math.h>\n"                               \
  "typedef struct tg_c_dispatch_state { " TG_STRINGIFY(TG_C_DISPATCH_STATE_FIELDS)             \
  " } tg_c_dispatch_state;\n"                                                                   \
  "typedef struct tg_c_workgroup_state { " TG_STRINGIFY(TG_C_WORKGROUP_STATE_FIELDS)           \
  " } tg_c_workgroup_state;\n"

typedef int32_t (*tg_c_kernel_fn)(const tg_c_dispatch_state* dispatch,
                                  const tg_c_workgroup_state* workgroup);

/* ---------------------------------------------------------------------------------------------
 * Extension "tg.native_handles", version 1 (OPTIONAL; found in tg_plugin_api.extensions).
 *
 * The native objects behind a buffer and a device, for host code that hands them to a native
 * library (NCCL, cuBLAS, a vendor's profiler) instead of going through this ABI. The host must
 * order that library's work itself: with a device's native stream (its work queues behind the
 * launches already enqueued), or, where the stream is NULL, by stream_sync first.
 *
 *   memory_kind: what native address space buffer addresses live in, a static lower-case string:
 *                "cuda" (CUdeviceptr), "hip" (hipDeviceptr_t), "host" (a plain host pointer),
 *                "opencl" (a cl_mem; its address is the handle, not a pointer).
 *   buffer_native: byte 0 of |buffer| as a uint64 (CUdeviceptr, or the host pointer's value), and
 *                |buffer|'s memory kind. Valid until buffer_free.
 *   device_native: the device's memory kind (buffers it allocates), its default stream as the
 *                native library knows it (CUstream; NULL for "host": work runs on the calling
 *                thread or the plugin's own threads, and stream_sync is the only ordering), and its
 *                native context (CUcontext; NULL where there is none). Valid until device_close.
 *   device_bind_thread: makes |device|'s native context current on the calling thread (CUDA:
 *                cuCtxSetCurrent), so a native library called next on this thread targets that
 *                device. Does nothing where there is no such notion.
 * Errors are the plugin's tg_error (free with the api's error_destroy); INVALID_ARGUMENT for NULL.
 * ------------------------------------------------------------------------------------------- */
#define TG_NATIVE_HANDLES_NAME "tg.native_handles"
#define TG_NATIVE_HANDLES_VERSION 1u

typedef struct tg_native_handles_ext {
  tg_ext base; /* base.struct_size = sizeof(tg_native_handles_ext); the fields below follow */
  tg_error* (*buffer_native)(tg_buffer* buffer, uint64_t* out_address, const char** out_memory_kind);
  tg_error* (*device_native)(tg_device* device, const char** out_memory_kind, void** out_stream,
                             void** out_context);
  tg_error* (*device_bind_thread)(tg_device* device);
} tg_native_handles_ext;

/* ---------------------------------------------------------------------------------------------
 * Extension "tg.memory_stats", version 1 (OPTIONAL; found in tg_plugin_api.extensions).
 *
 * How much of a device's memory this plugin's buffers hold, as PJRT's MemoryStats says it: for a
 * user watching a model's footprint, and for the conformance suite, which checks that freeing every
 * buffer brings bytes_in_use back (no leak). Counts the bytes the host asked buffer_alloc for.
 *
 *   device_memory_stats: fills |inout| up to its struct_size (the caller sets struct_size).
 *     bytes_in_use:       allocated by buffer_alloc and not yet freed (a free deferred behind pending
 *                         work counts until it happens)
 *     peak_bytes_in_use:  the most bytes_in_use has been since device_open
 *     num_allocs:         successful buffer_alloc calls since device_open
 *     largest_alloc_size: the largest of them, in bytes
 *     bytes_limit:        what the device can hold in all (its global memory); 0 = unknown
 * Errors are the plugin's tg_error; INVALID_ARGUMENT for a NULL device or |inout|.
 * ------------------------------------------------------------------------------------------- */
#define TG_MEMORY_STATS_NAME "tg.memory_stats"
#define TG_MEMORY_STATS_VERSION 1u

typedef struct tg_memory_stats {
  uint64_t struct_size;
  uint64_t bytes_in_use;
  uint64_t peak_bytes_in_use;
  uint64_t num_allocs;
  uint64_t largest_alloc_size;
  uint64_t bytes_limit;
} tg_memory_stats;

typedef struct tg_memory_stats_ext {
  tg_ext base; /* base.struct_size = sizeof(tg_memory_stats_ext); the field below follows */
  tg_error* (*device_memory_stats)(tg_device* device, tg_memory_stats* inout);
} tg_memory_stats_ext;

/* ---------------------------------------------------------------------------------------------
 * Layout pins: these offsets are frozen for ABI 1.x (a change here is a major version).
 * ------------------------------------------------------------------------------------------- */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define TG_STATIC_ASSERT _Static_assert
#elif defined(__cplusplus)
#define TG_STATIC_ASSERT static_assert
#endif
#ifdef TG_STATIC_ASSERT
TG_STATIC_ASSERT(sizeof(void*) == 8, "tg_plugin.h assumes a 64-bit target");
TG_STATIC_ASSERT(offsetof(tg_plugin_api, struct_size) == 0, "struct_size first");
TG_STATIC_ASSERT(offsetof(tg_plugin_api, error_code) == 32, "tg_plugin_api layout");
TG_STATIC_ASSERT(offsetof(tg_plugin_api, extensions) == 256, "tg_plugin_api layout");
TG_STATIC_ASSERT(TG_SIZE_TO(tg_plugin_api, extensions) == 264, "tg_plugin_api 1.0 size");
TG_STATIC_ASSERT(offsetof(tg_plugin_api, event_record) == 264, "tg_plugin_api 1.1 layout");
TG_STATIC_ASSERT(sizeof(tg_plugin_api) == 296, "tg_plugin_api 1.1 size");
TG_STATIC_ASSERT(sizeof(tg_device_props) == 136, "tg_device_props 1.0 size");
TG_STATIC_ASSERT(sizeof(tg_arg) == 32, "tg_arg layout");
TG_STATIC_ASSERT(sizeof(tg_launch_args) == 80, "tg_launch_args 1.0 size");
TG_STATIC_ASSERT(sizeof(tg_compile_args) == 64, "tg_compile_args 1.0 size");
TG_STATIC_ASSERT(sizeof(tg_c_dispatch_state) == 56, "tg_c_dispatch_state layout");
TG_STATIC_ASSERT(sizeof(tg_c_workgroup_state) == 24, "tg_c_workgroup_state layout");
TG_STATIC_ASSERT(sizeof(tg_native_handles_ext) == 56, "tg.native_handles v1 layout");
TG_STATIC_ASSERT(sizeof(tg_memory_stats) == 48, "tg_memory_stats v1 layout");
TG_STATIC_ASSERT(sizeof(tg_memory_stats_ext) == 40, "tg.memory_stats v1 layout");
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TG_PLUGIN_H_ */
