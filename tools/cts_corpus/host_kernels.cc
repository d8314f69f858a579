// host_kernels.cc: five kernels, each the smallest expression that makes the renderers emit one
// feature a plugin must run: plain elementwise code, a reduce through local memory and a barrier,
// float16, a grid wider than 65535 groups, and a scalar int argument.
//
// Inputs are small integers and multiples of 1/8, each a short pattern repeated, so every result below is exact in float32 and
// float16 whatever the order of additions or FMA contraction a device picks; the tolerances cover
// a device that computes half in lower precision anyway.
#include "tools/cts_corpus/host_kernels.h"

#include "compiler/schedule/buffer_node.h"
#include "frontend/variable.h"

namespace tg::cts_corpus {
namespace {

using compiler::AxisType;
using compiler::Kernel;
using compiler::Opt;
using compiler::OptOp;
using compiler::Target;

// An input: the tensor (a buffer nothing writes: only its node is in the graph) and its contents,
// |pattern| repeated over the shape.
struct Input {
  Tensor tensor;
  HostInput host;
};
Input MakeInput(const std::string& device, DType dtype, Shape shape, std::vector<double> pattern) {
  Tensor t = Tensor::empty(shape, dtype, device);
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return {t, {compiler::BufferOfView(t.uop()), {dtype, count, std::move(pattern)}}};
}

std::vector<double> Pattern(int64_t n, const std::function<double(int64_t)>& f) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = f(i);
  return v;
}

// Element |i| of |in|'s contents.
double At(const Input& in, int64_t i) { return in.host.data.values[i % in.host.data.values.size()]; }

int FirstAxis(const Kernel& k, AxisType type) {
  for (size_t i = 0; i < k.axes().size(); ++i)
    if (k.axes()[i].type == type) return static_cast<int>(i);
  return -1;
}

// out = relu(a * b + 1) over 1000 elements: not a multiple of any group or vector width, so the
// renderers' gates on the last group are exercised.
HostKernel Elementwise(const std::string& device) {
  const int64_t n = 1000;
  Input a = MakeInput(device, dtypes::float32, {n}, Pattern(17, [](int64_t i) { return i * 0.25 - 2; }));
  Input b = MakeInput(device, dtypes::float32, {n}, Pattern(11, [](int64_t i) { return double(i) - 5; }));
  HostKernel k{"elementwise",
               "out[i] = relu(a[i] * b[i] + 1), float32, 1000 elements",
               (a.tensor * b.tensor + 1.0f).relu()};
  k.expected = {dtypes::float32, n, {}};
  for (int64_t i = 0; i < n; ++i) {
    double v = At(a, i) * At(b, i) + 1;
    k.expected.values.push_back(v > 0 ? v : 0);
  }
  k.inputs = {a.host, b.host};
  return k;
}

// out[r] = sum_k x[r, k] over 16 rows of 1024. On the dialects that spell local memory the reduce is
// split over 64 work items a row (GROUP), whose partials meet in a local array behind a barrier;
// elsewhere the heuristic's reduce, as the host renders it for that device.
HostKernel GroupReduce(const std::string& device) {
  const int64_t rows = 16, cols = 1024;
  // A pattern of 13 does not divide a row, so every row's sum differs.
  Input x = MakeInput(device, dtypes::float32, {rows, cols}, Pattern(13, [](int64_t i) { return double((i * 7) % 13) - 6; }));
  HostKernel k{"group_reduce",
               "out[r] = sum over k of x[r, k], float32, 16 x 1024; local memory and a barrier on GPU dialects",
               x.tensor.sum({1})};
  k.expected = {dtypes::float32, rows, {}};
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += At(x, r * cols + c);
    k.expected.values.push_back(s);
  }
  k.inputs = {x.host};
  k.opts = [](const Kernel& start, const Target& target) -> std::vector<Opt> {
    int axis = FirstAxis(start, AxisType::kReduce);
    if (!target.shared_memory || axis < 0) return {};
    return {Opt{OptOp::kGroup, axis, 64}};
  };
  return k;
}

// out = a * b + 0.5 in float16 over 512 elements; every product and sum is exact in half.
HostKernel Half(const std::string& device) {
  const int64_t n = 512;
  Input a = MakeInput(device, dtypes::float16, {n}, Pattern(16, [](int64_t i) { return (i - 8) * 0.125; }));
  Input b = MakeInput(device, dtypes::float16, {n}, Pattern(7, [](int64_t i) { return double(i) - 3; }));
  HostKernel k{"half",
               "out[i] = a[i] * b[i] + 0.5, float16, 512 elements",
               a.tensor * b.tensor + 0.5f};
  k.expected = {dtypes::float16, n, {}};
  for (int64_t i = 0; i < n; ++i) k.expected.values.push_back(At(a, i) * At(b, i) + 0.5);
  k.inputs = {a.host, b.host};
  k.atol = 1e-3;
  k.rtol = 1e-3;  // float16 has 11 significant bits
  k.needs_fp16 = true;
  return k;
}

// out = a * 2 + 1 over 64 * 70001 elements. On a GPU, groups of 64 items make 70001 groups in
// dimension 0: past 65535, the limit of CUDA's y and z grid dimensions and of old OpenCL drivers'
// 16-bit group counters. The input repeats a pattern of 1000 (the output, elementwise, does too).
HostKernel LargeGrid(const std::string& device) {
  const int64_t groups = 70001, group = 64, n = groups * group, period = 1000;
  Input a = MakeInput(device, dtypes::float32, {n}, Pattern(period, [](int64_t i) { return i * 0.25 - 100; }));
  HostKernel k{"large_grid",
               "out[i] = a[i] * 2 + 1, float32, 4480064 elements; 70001 groups of 64 on GPU dialects",
               a.tensor * 2.0f + 1.0f};
  k.expected = {dtypes::float32, n, {}};
  for (double v : a.host.data.values) k.expected.values.push_back(v * 2 + 1);
  k.inputs = {a.host};
  k.opts = [](const Kernel& start, const Target& target) -> std::vector<Opt> {
    int axis = FirstAxis(start, AxisType::kGlobal);
    if (!target.gpu || axis < 0) return {};
    return {Opt{OptOp::kLocal, axis, 64}};
  };
  return k;
}

// out = a * scale + 1, |scale| a tg::Variable: the kernel takes it as a trailing int argument.
HostKernel VariableArg(const std::string& device) {
  const int64_t n = 256, scale = 7;
  Input a = MakeInput(device, dtypes::float32, {n}, Pattern(9, [](int64_t i) { return i * 0.5 - 2; }));
  Variable v("scale", 0, 100);
  HostKernel k{"variable",
               "out[i] = a[i] * scale + 1, float32, 256 elements; scale is an int argument (a tg::Variable)",
               a.tensor * v.tensor(device).cast(dtypes::float32) + 1.0f};
  k.expected = {dtypes::float32, n, {}};
  // The output repeats the input's pattern of 9.
  for (double x : a.host.data.values) k.expected.values.push_back(x * scale + 1);
  k.inputs = {a.host};
  k.variables = {{"scale", scale}};
  return k;
}

}  // namespace

std::vector<HostKernel> HostKernels(const std::string& device) {
  return {Elementwise(device), GroupReduce(device), Half(device), LargeGrid(device), VariableArg(device)};
}

}  // namespace tg::cts_corpus
