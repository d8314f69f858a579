#include "compiler/schedule/schedule.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/schedule/buffer_node.h"
#include "compiler/schedule/bound_variables.h"
#include "compiler/schedule/fusion_rules.h"
#include "compiler/schedule/rangeify.h"
#include "compiler/schedule/reduce_store_order.h"
#include "compiler/schedule/split_reduce.h"
#include "compiler/schedule/unchanged_stores.h"
#include "ir/error.h"
#include "ir/rewrite_trace.h"
#include "ir/substitute.h"

namespace tg::compiler {
namespace {

class Scheduler {
 public:
  Scheduler(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices,
            const OutputBufferFactory& make_output)
      : roots_(roots), make_output_(make_output ? make_output
                                              : static_cast<UOpRef (*)(const std::string&, DType, int64_t)>(
                                                    NewBufferNode)) {
    topo_ = UOp::Sink(roots)->toposort();
    topo_.pop_back();  // the SINK itself
    for (const UOpRef& u : topo_)
      for (const UOpRef& s : u->src()) consumers_[s.get()].push_back(u.get());
    for (size_t i = 0; i < roots.size(); ++i) device_of_root_[roots[i].get()] = devices[i];
    if (std::any_of(devices.begin(), devices.end(), [&](const std::string& d) { return d != devices[0]; }) ||
        std::any_of(topo_.begin(), topo_.end(), [](const UOpRef& u) { return u->op() == Ops::kCopy; }))
      MarkReaderDevices(roots, devices);
  }

  Schedule Run() {
    MarkRealized();
    std::vector<std::vector<ScheduleItem>> groups;  // the items of each realized node, topo order
    std::vector<const UOp*> nodes;
    for (const UOpRef& u : topo_) {
      if (!realize_.contains(u.get())) continue;
      groups.emplace_back();
      Realize(u, groups.back());
      nodes.push_back(u.get());
    }
    Schedule schedule;
    for (size_t g : OrderGroups(nodes))
      schedule.items.insert(schedule.items.end(), groups[g].begin(), groups[g].end());
    for (const UOpRef& root : roots_) schedule.realized.push_back(done_.at(root.get()));
    return schedule;
  }

 private:
  // Topological order already runs every producer before its readers. An ASSIGN writes into an
  // existing buffer, so a node that reads that buffer's OLD value (through the plain BUFFER, not
  // through the ASSIGN) must also run before it (write-after-read). Kahn's algorithm over both
  // kinds of edge, keeping topological order among ready nodes.
  std::vector<size_t> OrderGroups(const std::vector<const UOp*>& nodes) {
    absl::flat_hash_map<const UOp*, size_t> index;
    for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i]] = i;
    absl::flat_hash_map<const UOp*, std::vector<size_t>> assigns_of;  // target buffer -> ASSIGN groups
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i]->op() == Ops::kAssign) assigns_of[BufferOfView(done_.at(nodes[i])).get()].push_back(i);
    std::vector<std::vector<size_t>> after(nodes.size());
    std::vector<int> waiting(nodes.size(), 0);
    auto edge = [&](size_t from, size_t to) { after[from].push_back(to), ++waiting[to]; };
    for (size_t i = 0; i < nodes.size(); ++i)
      for (const UOp* n : DirectInputs(nodes[i])) {
        if (auto it = index.find(n); it != index.end()) edge(it->second, i);  // read after write
        if (n->op() != Ops::kBuffer) continue;
        if (auto it = assigns_of.find(n); it != assigns_of.end())
          for (size_t a : it->second)
            if (a != i) edge(i, a);  // write after read
      }
    std::vector<size_t> order, ready;
    for (size_t i = nodes.size(); i-- > 0;)
      if (waiting[i] == 0) ready.push_back(i);
    while (!ready.empty()) {
      std::sort(ready.begin(), ready.end(), std::greater<size_t>());
      size_t g = ready.back();
      ready.pop_back();
      order.push_back(g);
      for (size_t next : after[g])
        if (--waiting[next] == 0) ready.push_back(next);
    }
    if (order.size() != nodes.size())
      throw Error("schedule: the assigns in this realize read and write the same buffers in a cycle; realize "
                  "them in separate steps");
    return order;
  }

  // The realized nodes and plain buffers |u|'s kernel reads: its graph down to the first realized
  // node or BUFFER on every path (an ASSIGN's target is what it writes, not an input).
  std::vector<const UOp*> DirectInputs(const UOp* u) {
    std::vector<const UOp*> out, stack;
    absl::flat_hash_set<const UOp*> seen;
    size_t first = u->op() == Ops::kAssign ? 1 : 0;
    for (size_t i = first; i < u->src().size(); ++i) stack.push_back(u->src(i).get());
    if (u->op() == Ops::kAssign) {  // the target's own graph is read only up to its buffer
      const UOp* t = u->src(0).get();
      while (t->op() == Ops::kReshape || t->op() == Ops::kContiguous) t = t->src(0).get();
      if (t->op() != Ops::kBuffer) stack.push_back(t);
    }
    while (!stack.empty()) {
      const UOp* n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second) continue;
      if (realize_.contains(n) || n->op() == Ops::kBuffer) {
        out.push_back(n);
        continue;
      }
      for (const UOpRef& s : n->src()) stack.push_back(s.get());
    }
    return out;
  }

 private:
  void MarkRealized() {
    for (const UOpRef& root : roots_) realize_.insert(root.get());
    FusionRules fusion(consumers_, realize_);
    for (auto it = topo_.rbegin(); it != topo_.rend(); ++it) {
      const UOpRef& u = *it;
      if (u->op() == Ops::kContiguous || u->op() == Ops::kAssign) realize_.insert(u.get());
      if (u->op() == Ops::kCopy) realize_.insert({u.get(), u->src(0).get()});
      if (u->op() == Ops::kReduce && (!FusesIntoConsumer(u.get()) || StoredOutOfOrder(u.get())))
        realize_.insert(u.get());
      if (fusion.StoreInstead(u.get())) realize_.insert(u.get());
    }
  }

  // Whether some path from |reduce| up to the kernel that would fuse it stores it out of its own
  // order (a permuting view: see reduce_store_order.h); such a reduce is realized in its own order.
  bool StoredOutOfOrder(const UOp* reduce) {
    if (realize_.contains(reduce)) return false;  // a root or unfusable: already its own kernel
    constexpr int kMaxPaths = 64;  // fork-and-rejoin graphs: judge the first paths only
    int paths = 0;
    bool out_of_order = false;
    std::vector<const UOp*> path;
    std::function<void(const UOp*)> walk = [&](const UOp* u) {
      for (const UOp* c : consumers_[u]) {
        if (out_of_order || paths >= kMaxPaths) return;
        path.push_back(c);
        if (realize_.contains(c)) {
          ++paths;
          out_of_order = StoresReduceOutOfOrder(reduce, path);
        } else {
          walk(c);
        }
        path.pop_back();
      }
    };
    walk(reduce);
    return out_of_order;
  }

  // A reduce fuses into the one kernel that consumes it, unless a path to that kernel broadcasts
  // it (EXPAND: the reduce would be recomputed per broadcast element) or pads it. Consumers that
  // fork and rejoin inside one kernel are fine: equal index expressions are one node, computed once.
  bool FusesIntoConsumer(const UOp* reduce) {
    if (realize_.contains(reduce)) return true;  // a root: it is its own kernel
    absl::flat_hash_set<const UOp*> seen{reduce}, kernels;
    std::vector<const UOp*> stack{reduce};
    while (!stack.empty()) {
      const UOp* u = stack.back();
      stack.pop_back();
      const std::vector<const UOp*>& users = consumers_[u];
      for (const UOp* c : users) {
        // A pad (a cat's pieces) would run the reduce's loop for its border elements too.
        if (c->op() == Ops::kExpand || c->op() == Ops::kCopy || c->op() == Ops::kPad) return false;
        // A fork whose branch moves the data (windows of a pool, patches of a conv) reads the reduce
        // at other indices than its sibling: each would recompute it.
        if (users.size() > 1 && IsMovement(c->op()) && c->op() != Ops::kReshape) return false;
        if (realize_.contains(c)) kernels.insert(c);
        else if (seen.insert(c).second) stack.push_back(c);
      }
    }
    return kernels.size() <= 1;
  }

  // Where |u|'s kernel runs: the device its BUFFER/COPY sources pin it to; a graph of constants only
  // runs on the device of the first root that reads it (with sharded tensors, roots sit on several
  // devices, and a constant feeding device 1's graph must not be computed on device 0).
  std::string DeviceOf(const UOpRef& u) {
    std::string device = PinnedDevice(u);
    if (!device.empty()) return device;
    if (auto it = reader_device_.find(u.get()); it != reader_device_.end()) return it->second;
    return device_of_root_.at(roots_.front().get());
  }

  // The device a root, BUFFER or COPY at or below |u| ties it to; "" for constants only.
  std::string PinnedDevice(const UOpRef& u) {
    if (auto it = device_of_root_.find(u.get()); it != device_of_root_.end()) return it->second;
    if (auto it = device_.find(u.get()); it != device_.end()) return it->second;
    std::string device;
    if (u->op() == Ops::kBuffer) device = u->arg_as<BufferArg>().device;
    else if (u->op() == Ops::kCopy) device = u->arg_as<std::string>();
    else
      for (const UOpRef& s : u->src())
        if (device.empty()) device = PinnedDevice(s);
    return device_[u.get()] = device;
  }

  // Each node's first reading root's device, for DeviceOf's constant-only graphs. Below a COPY the
  // reader is the copy's source device (a constant reduce feeding a kernel on CPU:1 whose result is
  // copied to CPU is realized on CPU:1, not on CPU).
  void MarkReaderDevices(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices) {
    for (size_t i = 0; i < roots.size(); ++i) {
      std::vector<std::pair<const UOp*, std::string>> stack{{roots[i].get(), devices[i]}};
      while (!stack.empty()) {
        auto [n, device] = std::move(stack.back());
        stack.pop_back();
        if (!reader_device_.emplace(n, device).second) continue;
        if (n->op() == Ops::kCopy)
          if (std::string from = PinnedDevice(n->src(0)); !from.empty()) device = from;
        for (const UOpRef& s : n->src()) stack.emplace_back(s.get(), device);
      }
    }
  }

  // ASSIGN(target, value): the value's kernel stores straight into the target's buffer. When the
  // kernel also reads the target somewhere other than the element it writes, writing in place
  // would corrupt later reads, so the value goes to a temporary and is copied over.
  void RealizeAssign(const UOpRef& u, std::vector<ScheduleItem>& items) {
    UOpRef target = BufferOfView(Substitute(u->src(0), done_));
    if (!target)
      throw Error("assign: the target of an in-place assign must be a realized buffer (realize it first)");
    done_[u.get()] = Reshaped(target, u->shape());
    if (u->numel() == 0) return;
    UOpRef body = Substitute(u->src(1), done_);
    KernelBuilder builder(IndexDType(body));
    UOpRef ast = viz::TracePass("rangeify", body, [&] { return BuildKernelAst(body, target, builder); });
    ast = viz::TracePass("unchanged stores", ast, [&] { return graph_rewrite(ast, UnchangedStoreRules()); });
    if (!ReadsOutputElsewhere(ast)) {
      items.push_back({ScheduleItem::Kind::kKernel, ast, builder.buffers(), DeviceOf(u)});
      return;
    }
    UOpRef temp = make_output_(DeviceOf(u), u->dtype(), u->numel());
    KernelBuilder temp_builder(IndexDType(body));
    UOpRef temp_ast = viz::TracePass("rangeify", body, [&] { return BuildKernelAst(body, temp, temp_builder); });
    items.push_back({ScheduleItem::Kind::kKernel, temp_ast, temp_builder.buffers(), DeviceOf(u)});
    items.push_back({ScheduleItem::Kind::kCopy, nullptr, {target, temp}, DeviceOf(u)});
  }

  // Whether the kernel loads its output buffer (parameter 0) at an index other than the one it
  // stores to.
  static bool ReadsOutputElsewhere(const UOpRef& ast) {
    const UOpRef& store_index = ast->src(0)->src(0)->src(1);
    for (const UOpRef& n : ast->toposort())
      if (n->op() == Ops::kLoad && n->src(0)->src(0)->op() == Ops::kDefineGlobal &&
          n->src(0)->src(0)->arg_as<int64_t>() == 0 && n->src(0)->src(1) != store_index)
        return true;
    return false;
  }

  void Realize(const UOpRef& u, std::vector<ScheduleItem>& items) {
    if (u->op() == Ops::kAssign) return RealizeAssign(u, items);
    if (UOpRef buffer = BufferOfView(Substitute(u, done_))) {
      done_[u.get()] = WithLengthsOf(u, Reshaped(buffer, u->shape()));
      return;
    }
    UOpRef output = make_output_(DeviceOf(u), u->dtype(), u->numel());
    done_[u.get()] = WithLengthsOf(u, Reshaped(output, u->shape()));
    if (u->numel() == 0) return;
    if (u->op() == Ops::kCopy) {
      UOpRef source = BufferOfView(done_.at(u->src(0).get()));
      items.push_back({ScheduleItem::Kind::kCopy, nullptr, {output, source}, DeviceOf(u)});
      return;
    }
    UOpRef body = Substitute(u, WithoutSelf(u));
    KernelBuilder builder(IndexDType(body));
    UOpRef ast = viz::TracePass("rangeify", body, [&] { return BuildKernelAst(body, output, builder); });
    items.push_back({ScheduleItem::Kind::kKernel, ast, builder.buffers(), DeviceOf(u)});
  }

  NodeMap WithoutSelf(const UOpRef& u) {
    NodeMap map = done_;
    map.erase(u.get());
    return map;
  }

  // |view| of |u|'s buffer, with |u|'s symbolic axes still symbolic: readers loop to their lengths.
  static UOpRef WithLengthsOf(const UOpRef& u, UOpRef view) {
    for (size_t k = 0; u->lengths() != nullptr && k < u->shape().size(); ++k)
      if (const UOpRef& length = u->length(k)) view = view->var_shrink(static_cast<int64_t>(k), length);
    return view;
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
  absl::flat_hash_map<const UOp*, std::string> reader_device_;
  absl::flat_hash_set<const UOp*> realize_;
  NodeMap done_;  // realized node -> view of its buffer
};

}  // namespace

Schedule CreateSchedule(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices,
                        const OutputBufferFactory& make_output) {
  if (roots.size() != devices.size()) throw Error("CreateSchedule: one device per root");
  UOpRef split = viz::TracePass("split large reduces", UOp::Sink(roots),
                                [&] { return UOp::Sink(SplitLargeReduces(roots)); });
  Schedule schedule = Scheduler(split->src(), devices, make_output).Run();
  for (ScheduleItem& item : schedule.items)
    if (item.kind == ScheduleItem::Kind::kKernel) item.variables = KernelVariables(item.ast);
  return schedule;
}

}  // namespace tg::compiler

