// Tensor::from_loader, realize_all and assign: the pieces that let optimizers update parameters in one
// schedule and safe_load defer reading a file until a kernel needs its bytes.
#include <atomic>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/compiler.h"
#include "frontend/lazy_load.h"
#include "frontend/shape_util.h"
#include "frontend/tensor_state.h"
#include "runtime/device_registry.h"

namespace tg {
namespace {

struct PendingLoad {
  std::weak_ptr<const UOp> buffer;  // weak: a tensor dropped unread never loads, and its entry is purged
  std::function<void(void*, size_t)> fill;
};

class PendingLoads {
 public:
  static PendingLoads& Global() {
    static PendingLoads* loads = new PendingLoads();
    return *loads;
  }
  void Add(const UOpRef& buffer, std::function<void(void*, size_t)> fill) {
    std::lock_guard<std::mutex> lock(mu_);
    // Purge entries whose tensors died unread, so their callbacks (and the files they hold) go.
    absl::erase_if(pending_, [](const auto& kv) { return kv.second.buffer.expired(); });
    pending_[buffer.get()] = PendingLoad{buffer, std::move(fill)};
    count_ = pending_.size();
  }
  // Fills the buffers among |nodes| whose loads are pending. Two threads may realize graphs that read
  // the same loaded buffer: the one that takes its load fills it while holding |fill_mu_|, and the other
  // waits on |fill_mu_| before it can see the load gone, so no kernel reads a half-filled buffer.
  // |count_| drops only after the fills, so a thread that sees it at zero sees their bytes too.
  void RunFor(const std::vector<UOpRef>& nodes) {
    std::lock_guard<std::mutex> filling(fill_mu_);
    auto recount = [this] {
      std::lock_guard<std::mutex> lock(mu_);
      count_ = pending_.size();
    };
    try {
      for (auto& [buffer, load] : Take(nodes)) {
        runtime::Buffer* dst = compiler::RuntimeBuffer(buffer);
        std::vector<unsigned char> host(dst->nbytes());
        load.fill(host.data(), host.size());
        compiler::ThrowIfError(dst->CopyIn(host.data(), host.size()));
      }
    } catch (...) {
      recount();
      throw;
    }
    recount();
  }
  bool Empty() const { return count_.load() == 0; }

 private:
  // Removes and returns the loads of the BUFFER nodes in |nodes|; |count_| still counts them. An entry
  // is keyed by its node's address, which a node made after that one died may have again: such a node
  // is alive (|nodes| holds it) while the entry's is expired, so the entry is dropped, never filled.
  std::vector<std::pair<UOpRef, PendingLoad>> Take(const std::vector<UOpRef>& nodes) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::pair<UOpRef, PendingLoad>> taken;
    for (const UOpRef& n : nodes) {
      auto it = pending_.find(n.get());
      if (it == pending_.end()) continue;
      if (it->second.buffer.lock() == n) taken.emplace_back(n, std::move(it->second));
      pending_.erase(it);
    }
    return taken;
  }

  std::mutex fill_mu_;  // held while loads are filled; taken before |mu_|
  std::mutex mu_;
  absl::flat_hash_map<const UOp*, PendingLoad> pending_;
  std::atomic<size_t> count_{0};
};

}  // namespace

void RegisterPendingLoad(const UOpRef& buffer, std::function<void(void*, size_t)> fill) {
  PendingLoads::Global().Add(buffer, std::move(fill));
}

void RunPendingLoads(const std::vector<UOpRef>& roots) {
  PendingLoads& loads = PendingLoads::Global();
  if (loads.Empty()) return;
  std::vector<UOpRef> buffers;
  absl::flat_hash_set<const UOp*> seen;
  for (const UOpRef& root : roots)
    for (const UOpRef& u : root->toposort())
      if (u->op() == Ops::kBuffer && seen.insert(u.get()).second) buffers.push_back(u);
  loads.RunFor(buffers);
}

Tensor Tensor::from_loader(const Shape& shape, DType dtype, std::function<void(void*, size_t)> fill,
                           std::string_view device) {
  Tensor t = Tensor::empty(shape, dtype, device);
  if (t.numel() > 0) RegisterPendingLoad(compiler::BufferOfView(t.uop()), std::move(fill));
  return t;
}

void Tensor::realize_all(const std::vector<Tensor>& tensors) {
  std::vector<UOpRef> roots;
  for (const Tensor& t : tensors) roots.push_back(t.uop());
  RunPendingLoads(roots);
  // One root per distinct unrealized state: copies of one handle must not schedule twice.
  std::vector<std::shared_ptr<State>> states;
  std::vector<std::string> devices;
  absl::flat_hash_set<State*> seen;
  roots.clear();
  for (const Tensor& t : tensors) {
    if (compiler::IsRealized(t.uop()) || !seen.insert(t.state_.get()).second) continue;
    states.push_back(t.state_);
    roots.push_back(t.uop());
    devices.push_back(t.device());
  }
  if (roots.empty()) return;
  std::vector<UOpRef> buffers = compiler::Realize(roots, devices);
  for (size_t i = 0; i < states.size(); ++i) states[i]->uop = buffers[i];
}

Tensor& Tensor::assign(const Tensor& value) {
  if (value.shape() != shape() || value.dtype() != dtype() || value.device() != device())
    throw Error("assign: the value is " + ShapeString(value.shape()) + " " + value.dtype().name() + " on " +
                value.device() + " but the tensor is " + ShapeString(shape()) + " " + dtype().name() + " on " +
                device() + "; assign needs all three to match (reshape, .cast() or .to() the value first)");
  if (value.state_ == state_) return *this;
  // A realized tensor is written in place (its buffer keeps its identity: what tg::Jit replays
  // and optimizers rely on); anything else just takes the value's graph.
  bool realized = compiler::IsRealized(uop());
  state_->uop = realized ? UOp::Make(Ops::kAssign, dtype(), {uop(), value.uop()}) : value.uop();
  return *this;
}

}  // namespace tg
