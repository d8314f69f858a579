// host_corpus.h: the kernels the host's own renderers emit, one set per dialect, read from the
// manifest.json that //tools/cts_corpus generates at build time (docs/plugins.md, "Host kernels").
// Where kernel_corpus.h holds hand-written kernels for what the host never emits (syntax errors,
// 3-D ids, i64 scalars), this is what "works with our host" means: these exact sources, launch dims
// and arguments are what realize sends a plugin of that dialect.
#ifndef TG_PLUGINS_CTS_HOST_CORPUS_H_
#define TG_PLUGINS_CTS_HOST_CORPUS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cts/plugin_handle.h"

namespace tg_cts {

enum class ElementType { kFloat32, kFloat16, kInt32 };
const char* ElementTypeName(ElementType t);  // as the manifest spells it: "float32", ...
uint32_t ElementBytes(ElementType t);

struct HostArg {
  enum class Kind { kBuffer, kI32, kI64 };
  Kind kind = Kind::kBuffer;
  // A buffer: |count| elements; element i is values[i % values.size()] (a large buffer repeats a
  // pattern). An input is filled with them; an output must end up holding them, each within
  // atol + rtol * |value|.
  ElementType type = ElementType::kFloat32;
  uint64_t count = 0;
  std::vector<double> values;
  bool output = false;
  double atol = 0, rtol = 0;
  int64_t value = 0;  // kI32, kI64
};

struct HostKernel {
  std::string dialect, name;  // "opencl-c", "group_reduce": the case is HostKernels.<dialect>.<name>
  std::string path;           // the source file
  std::string entry, what;
  bool needs_fp16 = false;    // the device must declare TG_CAP_FP16
  uint32_t num_groups[3] = {1, 1, 1}, group_size[3] = {1, 1, 1};
  std::vector<HostArg> args;  // in parameter order
};

struct HostCorpus {
  std::string manifest;             // its path
  std::string error;                // why it could not be read; "" when it was
  bool found = false;               // the manifest file exists (it may still be malformed)
  std::vector<HostKernel> kernels;
  std::vector<std::string> not_rendered;  // "ptx/half: <the renderer's reason>"
  std::vector<std::string> Dialects() const;  // of |kernels|, in manifest order, each once
};

// The corpus in --host-corpus DIR, else in the runfiles; read once per process. A missing or malformed
// manifest is reported in |error| ("host corpus <path>: kernels[3].args[1]: \"dtype\" is ...").
const HostCorpus& LoadHostCorpus(const Plugin& p);

// Parses |text| as the manifest at |path| (kernel paths are relative to its directory).
HostCorpus ParseHostCorpus(const std::string& path, const std::string& text);

}  // namespace tg_cts

#endif  // TG_PLUGINS_CTS_HOST_CORPUS_H_
