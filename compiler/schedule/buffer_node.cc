#include "compiler/schedule/buffer_node.h"

#include <atomic>

#include "compiler/errors.h"

namespace tg::compiler {

namespace {
std::atomic<int64_t> next_id{1};
}  // namespace

UOpRef NewBufferNodeSharing(const std::string& device, DType dtype, int64_t numel, std::shared_ptr<void> storage) {
  return UOp::MakeNew(Ops::kBuffer, dtype, {}, BufferArg{next_id++, device, numel, std::move(storage)});
}

UOpRef NewBufferNode(const std::string& device, DType dtype, int64_t numel) {
  return NewBufferNode(DeviceNamed(device), dtype, numel);
}

UOpRef NewBufferNode(runtime::Device& dev, DType dtype, int64_t numel) {
  std::shared_ptr<void> storage;
  if (numel > 0) storage = runtime::Buffer::Create(dev, static_cast<uint64_t>(numel) * dtype.itemsize());
  return UOp::MakeNew(Ops::kBuffer, dtype, {}, BufferArg{next_id++, dev.name(), numel, std::move(storage)});
}

runtime::Buffer* RuntimeBuffer(const UOpRef& buffer_node) {
  return static_cast<runtime::Buffer*>(buffer_node->arg_as<BufferArg>().storage.get());
}

UOpRef BufferOfView(const UOpRef& view) {
  // Walked by pointer: every launch and replay asks, and a UOpRef per step is two atomic updates.
  const UOp* u = view.get();
  while (u->op() == Ops::kReshape || u->op() == Ops::kContiguous || u->op() == Ops::kVarShrink) u = u->src(0).get();
  if (u->op() != Ops::kBuffer) return nullptr;
  return u == view.get() ? view : u->shared_from_this();
}

}  // namespace tg::compiler
