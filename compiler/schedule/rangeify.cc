#include "compiler/schedule/rangeify.h"

#include <utility>

#include "compiler/schedule/bound_variables.h"
#include "ir/error.h"
#include "ir/symbolic.h"

namespace tg::compiler {
namespace {

// INDEX(x, i0, .., in-1, gate): the value of tensor x at (i0..) when gate holds, else unused.
struct IndexedTensor {
  UOpRef tensor;
  std::vector<UOpRef> idx;
  UOpRef gate;
};

IndexedTensor Unpack(const UOpRef& index) {
  const auto& src = index->src();
  return {src.front(), std::vector<UOpRef>(src.begin() + 1, src.end() - 1), src.back()};
}

bool IsTrue(const UOpRef& u) {
  return u->op() == Ops::kConst && std::holds_alternative<bool>(u->const_value()) &&
         std::get<bool>(u->const_value());
}

UOpRef And(const UOpRef& a, const UOpRef& b) {
  if (IsTrue(a)) return b;
  if (IsTrue(b)) return a;
  return logical_and(a, b);
}

UOpRef Index(const UOpRef& tensor, std::vector<UOpRef> idx, const UOpRef& gate) {
  if (idx.size() != tensor->shape().size())
    throw Error("rangeify: index rank " + std::to_string(idx.size()) + " != tensor rank " +
                std::to_string(tensor->shape().size()) + " for " + std::string(OpName(tensor->op())));
  std::vector<UOpRef> src;
  src.reserve(idx.size() + 2);
  src.push_back(tensor);
  for (auto& i : idx) src.push_back(std::move(i));
  src.push_back(gate);
  return UOp::Make(Ops::kIndex, tensor->dtype(), std::move(src));
}

KernelBuilder& Builder(const Match& m) { return m.ctx<KernelBuilder>(); }

// Pattern: INDEX whose tensor source is one of |ops|; captures the INDEX as "idx".
Pat IndexOf(std::vector<Ops> ops) {
  return Pat::Op(Ops::kIndex, {Pat::Ops_(ops).allow_any_len()}, "idx").allow_any_len();
}

UOpRef PushReshape(const Match& m) {  // x.reshape(s)[i] -> x[unflatten(flatten(i, s), x.shape)]
  auto [t, idx, gate] = Unpack(m["idx"]);
  UOpRef x = t->src(0);
  // A reshape of a reshape is one reshape: no div/mod round trip through the middle shape.
  while (x->op() == Ops::kReshape) x = x->src(0);
  UOpRef linear = Flatten(idx, t->shape(), Builder(m));
  return Index(x, Unflatten(linear, x->shape(), Builder(m)), gate);
}

UOpRef PushPermute(const Match& m) {  // x.permute(p)[i] -> x[j] with j[p[k]] = i[k]
  auto [t, idx, gate] = Unpack(m["idx"]);
  const auto& perm = t->arg_as<std::vector<int64_t>>();
  std::vector<UOpRef> in(idx.size());
  for (size_t k = 0; k < perm.size(); ++k) in[perm[k]] = idx[k];
  return Index(t->src(0), std::move(in), gate);
}

UOpRef PushExpand(const Match& m) {  // x.expand(s)[i] -> x[i with 0 on broadcast axes]
  auto [t, idx, gate] = Unpack(m["idx"]);
  const Shape& in_shape = t->src(0)->shape();
  for (size_t k = 0; k < idx.size(); ++k)
    if (in_shape[k] == 1) idx[k] = Builder(m).IndexConst(0);
  return Index(t->src(0), std::move(idx), gate);
}

UOpRef PushShrink(const Match& m) {  // x.shrink((s, e))[i] -> x[i + s]
  auto [t, idx, gate] = Unpack(m["idx"]);
  auto bounds = t->arg_pairs();
  for (size_t k = 0; k < idx.size(); ++k)
    if (bounds[k].first != 0) idx[k] = idx[k] + bounds[k].first;
  return Index(t->src(0), std::move(idx), gate);
}

UOpRef PushFlip(const Match& m) {  // x.flip()[i] -> x[n - 1 - i]
  auto [t, idx, gate] = Unpack(m["idx"]);
  const auto& flip = t->arg_as<std::vector<int64_t>>();
  for (size_t k = 0; k < idx.size(); ++k)
    if (flip[k]) idx[k] = Builder(m).IndexConst(t->shape()[k] - 1) - idx[k];
  return Index(t->src(0), std::move(idx), gate);
}

// x.pad((b, a))[i] -> valid ? x[i - b] : 0, with valid = b <= i < b + n; the loads below are gated
// by valid so they never touch memory outside x.
UOpRef PushPad(const Match& m) {
  auto [t, idx, gate] = Unpack(m["idx"]);
  const UOpRef& x = t->src(0);
  auto pads = t->arg_pairs();
  UOpRef valid = UOp::Const(dtypes::bool_, true);
  for (size_t k = 0; k < idx.size(); ++k) {
    auto [before, after] = pads[k];
    if (before == 0 && after == 0) continue;
    UOpRef i = idx[k];
    valid = And(valid, And(lt(Builder(m).IndexConst(before - 1), i),
                           lt(i, Builder(m).IndexConst(before + x->shape()[k]))));
    idx[k] = i - before;
  }
  UOpRef inner = Index(x, std::move(idx), And(gate, valid));
  return valid->where(inner, UOp::Const(x->dtype(), int64_t{0}));
}

// Elementwise ops are evaluated at the same index; scalar constants stay as they are.
UOpRef PushElementwise(const Match& m) {
  auto [t, idx, gate] = Unpack(m["idx"]);
  std::vector<UOpRef> src;
  src.reserve(t->src().size());
  for (const UOpRef& s : t->src())
    src.push_back(s->op() == Ops::kConst ? s : Index(s, idx, gate));
  return UOp::Make(t->op(), t->dtype(), std::move(src), t->arg());
}

UOpRef PushConst(const Match& m) { return m["idx"]->src(0); }  // c[i] -> c, and a variable's value likewise

UOpRef PushIota(const Match& m) {  // iota[i] -> i, in the iota's dtype
  auto [t, idx, gate] = Unpack(m["idx"]);
  return idx[0]->cast(t->dtype());
}

// contiguous(x)[i] -> x[i] when not materialized; var_shrink(x)[i] -> x[i], as only present elements are
// ever read (reduces loop to the length, stores are gated by it).
UOpRef PushPassThrough(const Match& m) {
  auto [t, idx, gate] = Unpack(m["idx"]);
  return Index(t->src(0), std::move(idx), gate);
}

// A scalar expression of the tensor graph (a symbolic length: variables, numbers, arithmetic) as
// kernel-level index math.
UOpRef Lowered(const UOpRef& scalar, KernelBuilder& builder) {
  UOpRef index = graph_rewrite(Index(scalar, {}, UOp::Const(dtypes::bool_, true)), PushIndexRules(), &builder);
  return index->dtype() == builder.index_dtype() ? index : index->cast(builder.index_dtype());
}

// x.sum(axes)[i] -> REDUCE(x[i with a fresh loop variable on each reduced axis], loops)
UOpRef PushReduce(const Match& m) {
  auto [t, idx, gate] = Unpack(m["idx"]);
  const UOpRef& x = t->src(0);
  const auto& rarg = t->arg_as<ReduceArg>();
  std::vector<UOpRef> loops;
  for (int64_t axis : rarg.axes) {
    int64_t extent = x->shape()[axis];
    // A symbolic axis loops to its length: the elements after it are absent, not the reduce's identity.
    if (const UOpRef& length = x->length(axis)) idx[axis] = Builder(m).NewSymbolicRange(Lowered(length, Builder(m)));
    else idx[axis] = extent == 1 ? Builder(m).IndexConst(0) : Builder(m).NewRange(extent);
    if (idx[axis]->op() == Ops::kRange) loops.push_back(idx[axis]);
  }
  UOpRef value = Index(x, std::move(idx), gate);
  if (loops.empty()) return value;
  std::vector<UOpRef> src{value};
  src.insert(src.end(), loops.begin(), loops.end());
  return UOp::Make(Ops::kReduce, t->dtype(), std::move(src), ReduceArg{rarg.op, {}});
}

UOpRef PushBuffer(const Match& m) {  // buffer[i] -> LOAD(INDEX(param, i, gate))
  auto [t, idx, gate] = Unpack(m["idx"]);
  // An empty buffer has no element any index could reach: the read never happens, and the
  // kernel takes no parameter without memory behind it.
  if (t->arg_as<BufferArg>().size == 0) return UOp::Const(t->dtype(), int64_t{0});
  UOpRef ptr = UOp::Make(Ops::kIndex, t->dtype(), {Builder(m).Param(t), idx[0], gate});
  return UOp::Make(Ops::kLoad, t->dtype(), {ptr});
}

}  // namespace

UOpRef KernelBuilder::NewRange(int64_t extent) {
  return UOp::Make(Ops::kRange, index_dtype_, {IndexConst(extent)}, next_range_id_++);
}

UOpRef KernelBuilder::NewSymbolicRange(const UOpRef& length) {
  return UOp::Make(Ops::kRange, index_dtype_, {length}, next_symbolic_range_id_++);
}

UOpRef KernelBuilder::Param(const UOpRef& buffer) {
  int64_t id = buffer->arg_as<BufferArg>().id;
  auto it = param_of_buffer_.find(id);
  if (it != param_of_buffer_.end()) return it->second;
  UOpRef param = UOp::Make(Ops::kDefineGlobal, buffer->dtype(), {},
                           static_cast<int64_t>(buffers_.size()));
  buffers_.push_back(buffer);
  param_of_buffer_.emplace(id, param);
  return param;
}

const PatternMatcher& PushIndexRules() {
  static const PatternMatcher* rules = new PatternMatcher({
      {IndexOf({Ops::kReshape}), PushReshape},
      {IndexOf({Ops::kPermute}), PushPermute},
      {IndexOf({Ops::kExpand}), PushExpand},
      {IndexOf({Ops::kShrink}), PushShrink},
      {IndexOf({Ops::kFlip}), PushFlip},
      {IndexOf({Ops::kPad}), PushPad},
      {IndexOf({Ops::kReduce}), PushReduce},
      {IndexOf({Ops::kBuffer}), PushBuffer},
      {IndexOf({Ops::kConst, Ops::kDefineVar}), PushConst},
      {IndexOf({Ops::kIota}), PushIota},
      {IndexOf({Ops::kContiguous, Ops::kDetach, Ops::kVarShrink}), PushPassThrough},
      {IndexOf(OpsWhere(IsAlu)), PushElementwise},
  });
  return *rules;
}

UOpRef Flatten(const std::vector<UOpRef>& idx, const Shape& shape, const KernelBuilder& builder) {
  UOpRef linear = builder.IndexConst(0);
  int64_t stride = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    if (shape[k] != 1) linear = linear + idx[k] * stride;
    stride *= shape[k];
  }
  return Simplify(linear);
}

std::vector<UOpRef> Unflatten(const UOpRef& linear, const Shape& shape,
                              const KernelBuilder& builder) {
  std::vector<UOpRef> idx(shape.size());
  int64_t stride = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    if (shape[k] == 1) {
      idx[k] = builder.IndexConst(0);
      continue;
    }
    UOpRef i = stride == 1 ? linear : linear / stride;
    idx[k] = Simplify(k == 0 ? i : i % shape[k]);
    stride *= shape[k];
  }
  return idx;
}

UOpRef BuildKernelAst(const UOpRef& root, const UOpRef& output, KernelBuilder& builder) {
  UOpRef out_param = builder.Param(output);
  std::vector<UOpRef> loops;
  // A symbolic axis loops over its whole extent (launch grids and opts need numbers); the present part
  // alone is stored, and every load below is gated the same way, so absent elements cost no memory traffic.
  UOpRef present = UOp::Const(dtypes::bool_, true);
  for (size_t k = 0; k < root->shape().size(); ++k) {
    int64_t extent = root->shape()[k];
    loops.push_back(extent == 1 ? builder.IndexConst(0) : builder.NewRange(extent));
    if (const UOpRef& length = root->length(k))
      present = And(present, lt(loops.back(), Lowered(length, builder)));
  }
  UOpRef value = graph_rewrite(Index(root, loops, present), PushIndexRules(), &builder);
  UOpRef target = UOp::Make(Ops::kIndex, root->dtype(), {out_param, Flatten(loops, root->shape(), builder), present});
  UOpRef store = UOp::Make(Ops::kStore, dtypes::void_, {target, value});
  // Every parameter stays in the kernel after the store, even one whose reads simplify away (an
  // empty reduce): launches pass all of them, and OpenCL refuses arguments a kernel lacks.
  std::vector<UOpRef> src{store};
  for (const UOpRef& b : builder.buffers()) src.push_back(builder.Param(b));
  // So are the variables, in name order: a launch passes every value (bound_variables.h).
  for (const UOpRef& v : VariablesUnder(store)) src.push_back(v);
  return Simplify(UOp::Make(Ops::kSink, dtypes::void_, std::move(src)));
}

}  // namespace tg::compiler
