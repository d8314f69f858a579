#include "compiler/schedule/allreduce.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "compiler/errors.h"
#include "compiler/schedule/buffer_node.h"
#include "compiler/schedule/gather.h"
#include "compiler/schedule/multi.h"
#include "ir/env.h"
#include "ir/error.h"
#include "ir/multi_arg.h"
#include "runtime/buffer.h"

namespace tg::compiler {
namespace {

// The ring needs every hop to be a direct copy; RING=0 forces the staged form (for tests).
bool UsesRing(const std::vector<std::string>& devices) {
  if (devices.size() < 2 || GetEnvInt("RING", 1) == 0) return false;
  for (size_t i = 0; i < devices.size(); ++i)
    if (!runtime::Buffer::CopiesDirectly(DeviceNamed(devices[i]), DeviceNamed(devices[(i + 1) % devices.size()])))
      return false;
  return true;
}

UOpRef Copy(const UOpRef& x, const std::string& to) { return UOp::Make(Ops::kCopy, x->dtype(), {x}, to); }

UOpRef Naive(const std::vector<UOpRef>& parts, const AllreduceArg& arg) {
  UOpRef acc = parts[arg.out];
  for (size_t j = 0; j < parts.size(); ++j)
    if (j != static_cast<size_t>(arg.out)) acc = acc->alu(arg.op, {Copy(parts[j], arg.devices[arg.out])});
  return acc;
}

UOpRef Ring(const std::vector<UOpRef>& parts, const AllreduceArg& arg) {
  const size_t n = parts.size();
  const Shape shape = parts[0]->shape();
  const int64_t numel = parts[0]->numel();
  std::vector<UOpRef> flat;
  for (const UOpRef& p : parts) flat.push_back(p->reshape({numel}));
  std::vector<UOpRef> reduced;  // chunk c, reduced over every device, here on the output's device
  std::vector<std::pair<int64_t, int64_t>> chunks = EvenBounds(numel, n);
  for (size_t c = 0; c < n; ++c) {
    auto [b, e] = chunks[c];
    if (b == e) continue;
    // Reduce-scatter: chunk c starts on device c and picks up each next device's part.
    UOpRef acc = flat[c]->shrink({{b, e}});
    size_t at = c;
    for (size_t step = 1; step < n; ++step) {
      at = (c + step) % n;
      acc = Copy(acc, arg.devices[at])->alu(arg.op, {flat[at]->shrink({{b, e}})});
    }
    // All-gather: the reduced chunk travels on around the ring to this node's device.
    while (at != static_cast<size_t>(arg.out)) {
      at = (at + 1) % n;
      acc = Copy(acc, arg.devices[at]);
    }
    reduced.push_back(acc);
  }
  return ConcatExact(reduced, 0)->reshape(shape);
}

UOpRef Lower(const std::vector<UOpRef>& parts, const AllreduceArg& arg) {
  if (parts.size() != arg.devices.size()) throw Error("ALLREDUCE: one source per device");
  if (parts[0]->numel() == 0) return parts[arg.out];
  return UsesRing(arg.devices) ? Ring(parts, arg) : Naive(parts, arg);
}

}  // namespace

std::vector<UOpRef> LowerAllreduces(const std::vector<UOpRef>& roots) {
  absl::flat_hash_map<const UOp*, UOpRef> done;
  bool any = false;
  for (const UOpRef& u : UOp::Sink(roots)->toposort()) {
    std::vector<UOpRef> src;
    bool changed = false;
    for (const UOpRef& s : u->src()) {
      src.push_back(done.at(s.get()));
      changed = changed || src.back() != s;
    }
    if (u->op() == Ops::kAllreduce) {
      done[u.get()] = Lower(src, AllreduceArg::Of(*u));
      any = true;
    } else {
      done[u.get()] = changed ? u->replace_src(src) : u;
    }
  }
  if (!any) return roots;
  std::vector<UOpRef> out;
  for (const UOpRef& r : roots) out.push_back(done.at(r.get()));
  return out;
}

}  // namespace tg::compiler
