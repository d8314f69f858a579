#include "tests/fuzz/tensor_eval.h"

#include <stdexcept>

#include "frontend/tg.h"

namespace tg::fuzz {
namespace {

std::vector<int> AsInts(const std::vector<int64_t>& v) { return std::vector<int>(v.begin(), v.end()); }

Tensor Elementwise(const Step& s, const std::vector<Tensor>& t) {
  const Tensor& a = t[s.src[0]];
  if (s.kind == StepKind::kUnary) {
    switch (static_cast<UnaryOp>(s.op)) {
      case UnaryOp::kNeg: return a.neg();
      case UnaryOp::kExp: return a.exp();
      case UnaryOp::kLog: return a.log();
      case UnaryOp::kSqrt: return a.sqrt();
      case UnaryOp::kRelu: return a.relu();
      case UnaryOp::kReciprocal: return a.reciprocal();
      case UnaryOp::kSin: return a.sin();
      case UnaryOp::kSquare: return a.square();
    }
  }
  if (s.kind == StepKind::kBinary || s.kind == StepKind::kConstBinary) {
    bool c = s.kind == StepKind::kConstBinary;
    const Tensor& b = c ? a : t[s.src[1]];  // unused when c: the constant goes in as a Scalar
    switch (static_cast<BinaryOp>(s.op)) {
      case BinaryOp::kAdd: return c ? a.add(Scalar(s.constant)) : a.add(b);
      case BinaryOp::kSub: return c ? a.sub(Scalar(s.constant)) : a.sub(b);
      case BinaryOp::kMul: return c ? a.mul(Scalar(s.constant)) : a.mul(b);
      case BinaryOp::kMaximum: return c ? a.maximum(Scalar(s.constant)) : a.maximum(b);
      case BinaryOp::kDiv: return c ? a.div(Scalar(s.constant)) : a.div(b);
    }
  }
  const Tensor& b = t[s.src[1]];
  auto op = static_cast<CompareOp>(s.op);
  Tensor cond = op == CompareOp::kLt ? a.lt(b) : op == CompareOp::kGt ? a.gt(b) : op == CompareOp::kEq ? a.eq(b) : a.ne(b);
  if (s.kind == StepKind::kCompare) return cond.cast(dtypes::float32);
  return cond.where(t[s.src[2]], t[s.src[3]]);
}

Tensor Apply(const Step& s, const std::vector<Tensor>& t, const std::string& device) {
  switch (s.kind) {
    case StepKind::kInput: return Tensor::from_vector<float>(s.data, Shape(s.dims), device);
    case StepKind::kReshape: return t[s.src[0]].reshape(s.ints);
    case StepKind::kPermute: return t[s.src[0]].permute(AsInts(s.ints));
    case StepKind::kExpand: return t[s.src[0]].expand(s.ints);
    case StepKind::kPad: return t[s.src[0]].pad(s.pairs);
    case StepKind::kShrink: return t[s.src[0]].shrink(s.pairs);
    case StepKind::kFlip: return t[s.src[0]].flip(AsInts(s.ints));
    case StepKind::kReduce:
      return s.op == static_cast<int>(ReduceOp::kSum) ? t[s.src[0]].sum(AsInts(s.ints), s.keepdim)
                                                      : t[s.src[0]].max(AsInts(s.ints), s.keepdim);
    case StepKind::kMatmul: return t[s.src[0]].matmul(t[s.src[1]]);
    case StepKind::kContiguous: return t[s.src[0]].contiguous();
    default: return Elementwise(s, t);
  }
}

}  // namespace

std::vector<std::vector<float>> RunOnDevice(const Program& program, const std::string& device) {
  std::vector<Tensor> t;
  t.reserve(program.steps.size());
  for (const Step& s : program.steps) {
    t.push_back(Apply(s, t, device));
    if (t.back().shape() != Shape(s.dims))
      throw std::logic_error("tensor shape " + ShapeString(t.back().shape()) + " != recorded " + DimsString(s.dims));
  }
  std::vector<Tensor> outs;
  for (int o : program.outputs) outs.push_back(t[o]);
  Tensor::realize_all(outs);
  std::vector<std::vector<float>> result;
  for (const Tensor& o : outs) result.push_back(o.to_vector<float>());
  return result;
}

}  // namespace tg::fuzz
