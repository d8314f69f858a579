// Fusion cost rules: where the scheduler stores a node in a buffer instead of fusing it into (and so
// recomputing it in) every kernel that reads it.
//
// Fusion recomputes an elementwise chain wherever it is read. Read inside a reduce loop through a
// broadcast (a matmul's operand: every output column evaluates it again), or by several reduces, a
// chain with a transcendental in it costs many times its own work: a transformer's GELU(fc1) read by
// the fc2 matmul and by the fc1-input gradient spent most of a block's time in exp2. Storing it once
// costs one store and one load per read, which beats recomputing anything but a few cheap ops.
//
// A reduce read inside another reduce's loop (a convolution max-pooled, a matmul summed into a loss)
// nests its loop there. The codegen tiles a kernel's output axes, and the inner reduce's output axes
// are now the outer reduce's loop: a long inner loop runs untiled (fashion_mnist's conv2 fused into
// its max-pool ran at a tenth of the conv's own speed). Storing the inner reduce costs one store and
// one load per output, small against a long loop.
#ifndef TG_COMPILER_SCHEDULE_FUSION_RULES_H_
#define TG_COMPILER_SCHEDULE_FUSION_RULES_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/uop.h"

namespace tg::compiler {

using ConsumerMap = absl::flat_hash_map<const UOp*, std::vector<const UOp*>>;

// Judges nodes against the realize decisions already made for their consumers: ask about a node only
// after every node that reads it has been decided (reverse topological order).
class FusionRules {
 public:
  FusionRules(const ConsumerMap& consumers, const absl::flat_hash_set<const UOp*>& realized)
      : consumers_(consumers), realized_(realized) {}

  // Whether |u| should be its own kernel's output rather than fused into its readers:
  //  - elementwise: its chain costs at least kExpensiveChain per evaluation beyond the load that
  //    would replace it, and reduce loops would evaluate each of its elements at least twice; or it
  //    costs less, but reduce loops evaluate it so often that tiling does not amortize it;
  //  - a reduce: its loop is at least kLongNestedLoop long and another reduce's loop would hold it.
  bool StoreInstead(const UOp* u);

  // ALU work plus leaf loads of one evaluation of a chain, minus the one load reading it back
  // would cost (a transcendental counts as the polynomial it is lowered to).
  static constexpr int kExpensiveChain = 8;
  // A cheaper chain (an activation and a bias, a residual add with a per-channel scale) is stored
  // when the reduce loops reading it would still evaluate it kExpensiveChain work's worth per element
  // after a register tile has shared each evaluation among kTileReuse outputs: a convolution reads
  // each input element once per output channel and tap (hundreds of times). Chains of one op on one
  // load always ride along.
  static constexpr int kCheapestRepeatedChain = 2;
  static constexpr double kTileReuse = 16;
  static constexpr int64_t kLongNestedLoop = 64;

 private:
  // One kernel that evaluates a node: |per_element| evaluations per element of the node, and
  // whether they sit inside a reduce loop of that kernel.
  struct Reader {
    const UOp* kernel;
    double per_element;
    bool in_reduce;
  };
  bool StoreElementwise(const UOp* u);
  bool StoreNestedReduce(const UOp* reduce);
  const std::vector<Reader>& ReadersOf(const UOp* u);
  int ChainCost(const UOp* u, int enough) const;

  const ConsumerMap& consumers_;
  const absl::flat_hash_set<const UOp*>& realized_;
  absl::flat_hash_map<const UOp*, std::vector<Reader>> readers_;
};

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_FUSION_RULES_H_
