#include "compiler/schedule.h"

#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/buffer_node.h"
#include "compiler/rangeify.h"
#include "ir/error.h"
#include "ir/substitute.h"

namespace tg::compiler {
namespace {

class Scheduler {
 public:
  Scheduler(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices,
            const OutputBufferFactory& make_output)
      : roots_(roots), make_output_(make_output ? make_output : NewBufferNode) {
    topo_ = UOp::Sink(roots)->toposort();
    topo_.pop_back();  // the SINK itself
    for (const UOpRef& u : topo_)
      for (const UOpRef& s : u->src()) consumers_[s.get()].push_back(u.get());
    for (size_t i = 0; i < roots.size(); ++i) device_of_root_[roots[i].get()] = devices[i];
  }

  Schedule Run() {
    MarkRealized();
    Schedule schedule;
    for (const UOpRef& u : topo_)
      if (realize_.contains(u.get())) Realize(u, schedule.items);
    for (const UOpRef& root : roots_) schedule.realized.push_back(done_.at(root.get()));
    return schedule;
  }

 private:
  void MarkRealized() {
    for (const UOpRef& root : roots_) realize_.insert(root.get());
    for (auto it = topo_.rbegin(); it != topo_.rend(); ++it) {
      const UOpRef& u = *it;
      if (u->op() == Ops::kContiguous) realize_.insert(u.get());
      if (u->op() == Ops::kCopy) realize_.insert({u.get(), u->src(0).get()});
      if (u->op() == Ops::kReduce && !FusesIntoConsumer(u.get())) realize_.insert(u.get());
    }
  }

  // A reduce fuses into the one kernel that consumes it, unless a path to that kernel broadcasts
  // it (EXPAND: the reduce would be recomputed per broadcast element). Consumers that fork and
  // rejoin inside one kernel are fine: equal index expressions are one node, computed once.
  bool FusesIntoConsumer(const UOp* reduce) {
    if (realize_.contains(reduce)) return true;  // a root: it is its own kernel
    absl::flat_hash_set<const UOp*> seen{reduce}, kernels;
    std::vector<const UOp*> stack{reduce};
    while (!stack.empty()) {
      const UOp* u = stack.back();
      stack.pop_back();
      for (const UOp* c : consumers_[u]) {
        if (c->op() == Ops::kExpand || c->op() == Ops::kCopy) return false;
        if (realize_.contains(c)) kernels.insert(c);
        else if (seen.insert(c).second) stack.push_back(c);
      }
    }
    return kernels.size() <= 1;
  }

  std::string DeviceOf(const UOpRef& u) {
    if (auto it = device_of_root_.find(u.get()); it != device_of_root_.end()) return it->second;
    if (auto it = device_.find(u.get()); it != device_.end()) return it->second;
    std::string device;
    if (u->op() == Ops::kBuffer) device = u->arg_as<BufferArg>().device;
    else if (u->op() == Ops::kCopy) device = u->arg_as<std::string>();
    else
      for (const UOpRef& s : u->src())
        if (device.empty()) device = DeviceOf(s);
    if (device.empty()) device = device_of_root_.at(roots_.front().get());
    return device_[u.get()] = device;
  }

  void Realize(const UOpRef& u, std::vector<ScheduleItem>& items) {
    if (UOpRef buffer = BufferOfView(Substitute(u, done_))) {
      done_[u.get()] = Reshaped(buffer, u->shape());
      return;
    }
    UOpRef output = make_output_(DeviceOf(u), u->dtype(), u->numel());
    done_[u.get()] = Reshaped(output, u->shape());
    if (u->numel() == 0) return;
    if (u->op() == Ops::kCopy) {
      UOpRef source = BufferOfView(done_.at(u->src(0).get()));
      items.push_back({ScheduleItem::Kind::kCopy, nullptr, {output, source}, DeviceOf(u)});
      return;
    }
    UOpRef body = Substitute(u, WithoutSelf(u));
    KernelBuilder builder(IndexDType(body));
    UOpRef ast = BuildKernelAst(body, output, builder);
    items.push_back({ScheduleItem::Kind::kKernel, ast, builder.buffers(), DeviceOf(u)});
  }

  NodeMap WithoutSelf(const UOpRef& u) {
    NodeMap map = done_;
    map.erase(u.get());
    return map;
  }

  static UOpRef Reshaped(const UOpRef& buffer, const Shape& shape) {
    return shape == buffer->shape() ? buffer : buffer->reshape(shape);
  }

  // int32 index math unless some tensor in the kernel has more elements than int32 can count.
  static DType IndexDType(const UOpRef& body) {
    for (const UOpRef& n : body->toposort())
      if (n->numel() > std::numeric_limits<int32_t>::max()) return dtypes::int64;
    return dtypes::int32;
  }

  const std::vector<UOpRef>& roots_;
  OutputBufferFactory make_output_;
  std::vector<UOpRef> topo_;
  absl::flat_hash_map<const UOp*, std::vector<const UOp*>> consumers_;
  absl::flat_hash_map<const UOp*, std::string> device_of_root_;
  absl::flat_hash_map<const UOp*, std::string> device_;
  absl::flat_hash_set<const UOp*> realize_;
  NodeMap done_;  // realized node -> view of its buffer
};

}  // namespace

Schedule CreateSchedule(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices,
                        const OutputBufferFactory& make_output) {
  if (roots.size() != devices.size()) throw Error("CreateSchedule: one device per root");
  return Scheduler(roots, devices, make_output).Run();
}

}  // namespace tg::compiler

