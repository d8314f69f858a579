// manifest_entry.cc: the JSON of one kernel: where its source is, how to launch it, what to pass and
// what it must leave in its output.
#include "tools/cts_corpus/manifest_entry.h"

#include "ir/error.h"

namespace tg::cts_corpus {
namespace {

nlohmann::ordered_json Dims(const std::array<uint32_t, 3>& d) { return {d[0], d[1], d[2]}; }

nlohmann::ordered_json Buffer(const HostData& data, const char* values_key) {
  nlohmann::ordered_json b;
  b["kind"] = "buffer";
  b["dtype"] = data.dtype.name();
  b["count"] = data.count;
  b[values_key] = data.values;
  return b;
}

}  // namespace

nlohmann::ordered_json ManifestEntry(const std::string& dialect, bool gpu, const std::string& file, const HostKernel& kernel,
                                     const compiler::ScheduleItem& item, const compiler::GeneratedKernel& generated) {
  const std::string where = "cts_corpus: kernel '" + kernel.role + "' in " + dialect;
  nlohmann::ordered_json e;
  e["dialect"] = dialect;
  e["name"] = kernel.role;
  e["file"] = file;
  e["entry"] = generated.source.entry;
  e["what"] = kernel.what;
  e["requires"] = kernel.needs_fp16 && gpu ? std::vector<std::string>{"fp16"} : std::vector<std::string>{};
  e["num_groups"] = Dims(generated.dims.num_groups);
  e["group_size"] = Dims(generated.dims.group_size);
  nlohmann::ordered_json args = nlohmann::ordered_json::array();
  for (size_t i = 0; i < item.buffers.size(); ++i) {
    const UOpRef& buffer = item.buffers[i];
    if (i == 0) {
      if (buffer->arg_as<BufferArg>().size != kernel.expected.count || buffer->dtype() != kernel.expected.dtype)
        throw Error(where + ": its output is " + std::to_string(buffer->arg_as<BufferArg>().size) + " x " +
                    buffer->dtype().name() + ", the expected data " + std::to_string(kernel.expected.count) + " x " +
                    kernel.expected.dtype.name());
      nlohmann::ordered_json out = Buffer(kernel.expected, "expect");
      out["atol"] = kernel.atol;
      out["rtol"] = kernel.rtol;
      args.push_back(out);
      continue;
    }
    const HostInput* input = nullptr;
    for (const HostInput& in : kernel.inputs)
      if (in.buffer == buffer) input = &in;
    if (input == nullptr)
      throw Error(where + ": parameter " + std::to_string(i) + " is a buffer (" + buffer->dtype().name() +
                  ") that is none of the kernel's inputs; the expression reads memory it gives no data for");
    args.push_back(Buffer(input->data, "fill"));
  }
  for (const UOpRef& var : item.variables) {
    const std::string& name = var->arg_as<std::string>();
    auto it = kernel.variables.find(name);
    if (it == kernel.variables.end())
      throw Error(where + ": it reads variable '" + name + "', which the kernel gives no value");
    args.push_back({{"kind", "i32"}, {"value", it->second}});
  }
  e["args"] = args;
  return e;
}

}  // namespace tg::cts_corpus
