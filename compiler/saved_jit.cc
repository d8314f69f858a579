#include "compiler/saved_jit.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "compiler/capture.h"
#include "compiler/errors.h"
#include "compiler/schedule/buffer_node.h"
#include "ir/error.h"
#include "plugins/abi/tg_plugin.h"

namespace tg::compiler {
namespace {

int64_t Numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Whether the kernel |ast| loads from its output (parameter 0), as an in-place update (assign) does:
// the output is then state whose bytes the file must carry. LOAD(INDEX(DEFINE_GLOBAL n, i)).
bool LoadsOutput(const UOpRef& ast) {
  for (const UOpRef& n : ast->toposort()) {
    if (n->op() != Ops::kLoad || n->src().empty() || n->src(0)->src().empty()) continue;
    const UOpRef& base = n->src(0)->src(0);
    if (base->op() == Ops::kDefineGlobal && base->arg_as<int64_t>() == 0) return true;
  }
  return false;
}

// Builds a JitFile from a capture, numbering devices, kernels and buffers as it first meets them.
class PlanBuilder {
 public:
  uint32_t Device(const runtime::Device& device) {
    auto [it, added] = device_index_.try_emplace(&device, file_.devices.size());
    if (added) {
      const runtime::DeviceInfo& info = device.info();
      file_.devices.push_back({info.name, info.plugin, info.arch, info.fingerprint});
    }
    return it->second;
  }

  uint32_t Buffer(const UOpRef& view, const char* what) {
    UOpRef node = BufferOfView(view);
    runtime::Buffer* buffer = node ? RuntimeBuffer(node) : nullptr;
    if (buffer == nullptr)
      throw Error(std::string("Jit::save: ") + what + " is not a whole, non-empty buffer on one device (a sharded "
                  "or empty tensor); only single-device Jits of non-empty tensors can be saved");
    auto [it, added] = buffer_index_.try_emplace(buffer, file_.buffers.size());
    if (added) {
      file_.buffers.push_back({Device(buffer->device()), buffer->nbytes(), node->dtype().name(), false, ""});
      raw_.push_back(buffer);
      written_.push_back(false);
    }
    return it->second;
  }

  void Input(const UOpRef& view) {
    uint32_t b = Buffer(view, "an input");
    written_[b] = true;  // its contents come with each call
    file_.inputs.push_back({view->shape(), view->dtype().name(), b});
  }

  void Output(const UOpRef& view) {
    uint32_t b = Buffer(view, "an output");
    Read(b);
    file_.outputs.push_back({view->shape(), view->dtype().name(), b});
  }

  void Item(const ScheduleItem& item) {
    JitFile::Launch launch;
    launch.is_copy = item.kind == ScheduleItem::Kind::kCopy;
    for (const UOpRef& b : item.buffers) launch.buffers.push_back(Buffer(b, "a buffer of a kernel"));
    if (launch.is_copy) {
      const UOpRef& from = item.buffers[1];
      launch.copy_bytes = static_cast<uint64_t>(from->arg_as<BufferArg>().size) * from->dtype().itemsize();
    } else {
      launch.kernel = Kernel(item);
    }
    // buffers[0] is written, the rest are read; an output the kernel also loads counts as read first.
    for (size_t i = 1; i < launch.buffers.size(); ++i) Read(launch.buffers[i]);
    if (!launch.is_copy && LoadsOutput(item.ast)) Read(launch.buffers[0]);
    written_[launch.buffers[0]] = true;
    file_.launches.push_back(std::move(launch));
  }

  JitFile Finish() {
    for (size_t b = 0; b < file_.buffers.size(); ++b) {
      if (!file_.buffers[b].has_initial) continue;
      runtime::Buffer& buffer = *raw_[b];
      file_.buffers[b].initial.resize(buffer.nbytes());
      ThrowIfError(buffer.EnsureAllocated());
      ThrowIfError(buffer.CopyOut(file_.buffers[b].initial.data(), buffer.nbytes()));
    }
    return std::move(file_);
  }

 private:
  void Read(uint32_t b) {
    if (!written_[b]) file_.buffers[b].has_initial = true;  // state: what it holds now is part of the Jit
  }

  uint32_t Kernel(const ScheduleItem& item) {
    CapturedKernel k = CapturedKernelOf(item);
    auto [it, added] = kernel_index_.try_emplace(k.program.get(), file_.kernels.size());
    if (!added) return it->second;
    const runtime::Device& device = k.program->device();
    absl::StatusOr<runtime::CachedBinary> binary = device.ProgramBinary(*k.program);
    if (!binary.ok())
      throw Error("Jit::save: " + device.name() + " cannot export the binary of kernel " + k.name + " (" +
                  std::string(binary.status().message()) + "); only devices whose plugin has program_binary "
                  "and program_load can save Jits");
    file_.kernels.push_back({Device(device), k.name, k.program->entry(), binary->format, binary->bytes, k.dims});
    return it->second;
  }

  JitFile file_{TG_ABI_MAJOR, TG_ABI_MINOR};
  absl::flat_hash_map<const runtime::Device*, uint32_t> device_index_;
  absl::flat_hash_map<runtime::Buffer*, uint32_t> buffer_index_;
  absl::flat_hash_map<const runtime::Program*, uint32_t> kernel_index_;
  std::vector<runtime::Buffer*> raw_;
  std::vector<bool> written_;
};

std::string AbiString(uint32_t major, uint32_t minor) { return std::to_string(major) + "." + std::to_string(minor); }

}  // namespace

JitFile SaveCapture(const std::vector<ScheduleItem>& items, const std::vector<UOpRef>& inputs,
                    const std::vector<UOpRef>& outputs) {
  for (const ScheduleItem& item : items)
    if (!item.variables.empty())
      throw Error("Jit::save: a captured kernel takes variable '" + item.variables[0]->arg_as<std::string>() +
                  "', and a saved Jit has no way to pass variables yet; save a Jit whose inputs are tensors");
  PlanBuilder plan;
  for (const UOpRef& in : inputs) plan.Input(in);
  for (const ScheduleItem& item : items) plan.Item(item);
  for (const UOpRef& out : outputs) plan.Output(out);
  return plan.Finish();
}

SavedJit::SavedJit(JitFile file, const std::string& path) : file_(std::move(file)) {
  if (file_.abi_major != TG_ABI_MAJOR)
    throw Error("saved Jit " + path + " is stale: its kernels were compiled under plugin ABI " +
                AbiString(file_.abi_major, file_.abi_minor) + ", this build speaks ABI " +
                AbiString(TG_ABI_MAJOR, TG_ABI_MINOR) + " (the major must match): make it again with this build");
  BindDevices(path);
  LoadKernels(path);
  MakeBuffers();
}

void SavedJit::BindDevices(const std::string& path) {
  for (const JitFile::Device& want : file_.devices) {
    std::string wanted = want.name + " (plugin " + want.plugin + ", arch '" + want.arch + "')";
    runtime::Device* device = nullptr;
    try {
      device = &DeviceNamed(want.name);
    } catch (const Error& e) {
      throw Error("saved Jit " + path + " is for another device: it runs on " + wanted +
                  ", which this process does not have: " + e.what());
    }
    const runtime::DeviceInfo& have = device->info();
    if (have.plugin != want.plugin)
      throw Error("saved Jit " + path + " is for another device: it runs on " + wanted + ", but " + want.name +
                  " here is a " + have.plugin + " device; load it where " + want.name + " is a " + want.plugin +
                  " device");
    if (have.fingerprint != want.fingerprint)
      throw Error("saved Jit " + path + " is stale: it was compiled for " + wanted + " with compiler fingerprint '" +
                  want.fingerprint + "', but " + want.name + " here has fingerprint '" + have.fingerprint +
                  "' (another compiler, driver or device model): make it again on this machine");
    devices_.push_back(device);
  }
}

void SavedJit::LoadKernels(const std::string& path) {
  for (const JitFile::Kernel& k : file_.kernels) {
    runtime::Device& device = *devices_[k.device];
    absl::StatusOr<std::shared_ptr<runtime::Program>> program = device.LoadProgram({k.format, k.binary}, k.entry);
    if (!program.ok())
      throw Error("saved Jit " + path + ": " + device.name() + " refuses the binary of kernel " + k.name +
                  " (format '" + k.format + "'): " + std::string(program.status().message()));
    programs_.push_back(*std::move(program));
  }
}

void SavedJit::MakeBuffers() {
  input_of_buffer_.assign(file_.buffers.size(), -1);
  for (size_t i = 0; i < file_.inputs.size(); ++i) input_of_buffer_[file_.inputs[i].buffer] = static_cast<int>(i);
  for (size_t b = 0; b < file_.buffers.size(); ++b) {
    const JitFile::Buffer& plan = file_.buffers[b];
    if (input_of_buffer_[b] >= 0) {
      buffers_.push_back(nullptr);
      continue;
    }
    std::shared_ptr<runtime::Buffer> buffer = runtime::Buffer::Create(*devices_[plan.device], plan.nbytes);
    if (plan.has_initial) ThrowIfError(buffer->CopyIn(plan.initial.data(), plan.nbytes));
    buffers_.push_back(std::move(buffer));
  }
  for (const JitFile::Tensor& out : file_.outputs) {
    if (input_of_buffer_[out.buffer] >= 0) {
      output_nodes_.push_back(nullptr);  // Run hands back that input's view
      continue;
    }
    std::optional<DType> dtype = DTypeFromName(out.dtype);
    if (!dtype) throw Error("saved Jit: an output has dtype '" + out.dtype + "', which this build does not know");
    output_nodes_.push_back(NewBufferNodeSharing(devices_[file_.buffers[out.buffer].device]->name(), *dtype,
                                                 Numel(out.shape), buffers_[out.buffer]));
  }
  for (const auto& b : buffers_) bound_.push_back(b.get());
}

std::vector<UOpRef> SavedJit::Run(const std::vector<UOpRef>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    UOpRef node = BufferOfView(inputs[i]);
    runtime::Buffer* buffer = node ? RuntimeBuffer(node) : nullptr;
    if (buffer == nullptr) throw Error("saved Jit: input " + std::to_string(i) + " is not a realized, whole buffer");
    bound_[file_.inputs[i].buffer] = buffer;
  }
  for (size_t l = 0; l < file_.launches.size(); ++l) {
    const JitFile::Launch& launch = file_.launches[l];
    if (launch.is_copy) {
      ThrowIfError(bound_[launch.buffers[0]]->CopyFrom(*bound_[launch.buffers[1]], launch.copy_bytes));
      continue;
    }
    const JitFile::Kernel& kernel = file_.kernels[launch.kernel];
    args_.clear();
    for (uint32_t b : launch.buffers) args_.push_back(runtime::KernelArg::Buf(bound_[b]));
    ThrowIfError(devices_[kernel.device]->Launch(*programs_[launch.kernel], kernel.dims, args_));
  }
  std::vector<UOpRef> out = output_nodes_;
  for (size_t o = 0; o < out.size(); ++o)
    if (!out[o]) out[o] = inputs[input_of_buffer_[file_.outputs[o].buffer]];
  return out;
}

JitFile SavedJit::Snapshot() const {
  JitFile file = file_;
  for (size_t b = 0; b < file.buffers.size(); ++b)
    if (file.buffers[b].has_initial && buffers_[b])
      ThrowIfError(buffers_[b]->CopyOut(file.buffers[b].initial.data(), file.buffers[b].nbytes));
  return file;
}

size_t SavedJit::kernel_launches() const {
  size_t n = 0;
  for (const JitFile::Launch& l : file_.launches) n += !l.is_copy;
  return n;
}

void WriteJitFileBytes(const std::string& path, const std::string& bytes) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw Error("Jit::save: cannot write " + tmp + ": " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw Error("Jit::save: cannot move " + tmp + " to " + path + ": " + std::strerror(errno));
}

std::string ReadJitFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("Jit::load: cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw Error("Jit::load: cannot read " + path + ": " + std::strerror(errno));
  return std::move(bytes).str();
}

}  // namespace tg::compiler
