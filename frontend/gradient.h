// Reverse-mode autodiff over the UOp graph: one rewrite rule per differentiable primitive.
// Used by Tensor::backward / Tensor::gradient before anything is realized (docs/architecture.md).
#ifndef TG_FRONTEND_GRADIENT_H_
#define TG_FRONTEND_GRADIENT_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/pattern_matcher.h"
#include "ir/uop.h"

namespace tg {

// The local rules. Each matches one primitive op and, with the gradient of that node as ctx
// (GradientContext), returns SINK(g0, g1, ...): the gradient for each source, NOOP where a
// source gets none (comparisons, integer inputs, conditions, DETACH).
const PatternMatcher& GradientRules();

// The rules for COPY and MULTI (frontend/gradient_multi.cc): gradients across devices; part of GradientRules.
const PatternMatcher& DeviceGradientRules();

// For rule callbacks: SINK(g0, g1, ...) for |node|'s sources, NOOP where g is nullptr or the source is
// not a float.
UOpRef GradientSink(const UOpRef& node, const std::vector<UOpRef>& grads);

// |grad| on the one device |device| when it lives on another (a COPY); as it is when it is constants
// only or already there. For a leaf made of constants (Tensor::zeros) reached through to(): nothing in
// its graph says where it lives, so its gradient arrives on the device it was copied to.
UOpRef GradientOnDevice(const UOpRef& grad, const std::string& device);

struct GradientContext {
  UOpRef grad;  // d(root)/d(node), shaped like the node
};

// d(root)/d(target) for every target that root depends on through differentiable ops, given
// d(root)/d(root) = |root_grad|. Gradients over broadcast axes are summed back. Targets root does
// not reach are absent from the result.
absl::flat_hash_map<const UOp*, UOpRef> ComputeGradient(const UOpRef& root, const UOpRef& root_grad,
                                                        const std::vector<UOpRef>& targets);

}  // namespace tg

#endif  // TG_FRONTEND_GRADIENT_H_
