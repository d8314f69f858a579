#include "tools/bench/models.h"

#include <cmath>
#include <optional>

#include "compiler/compiler.h"
#include "ir/error.h"
#include "runtime/device_registry.h"

namespace tg::bench {
namespace {

Tensor Uniform(const Shape& shape, double bound, const std::string& device) {
  return (Tensor::rand(shape, dtypes::float32, device) * (2 * bound) - bound).realize();
}

}  // namespace

Linear Linear::Init(int64_t in, int64_t out, const std::string& device) {
  double bound = 1.0 / std::sqrt(static_cast<double>(in));
  return Linear{Uniform({in, out}, bound, device), Uniform({out}, bound, device)};
}

Mlp Mlp::Init(const std::vector<int64_t>& dims, const std::string& device) {
  Mlp m;
  for (size_t i = 0; i + 1 < dims.size(); ++i) m.layers.push_back(Linear::Init(dims[i], dims[i + 1], device));
  return m;
}

Tensor Mlp::Forward(const Tensor& x) const {
  Tensor h = x;
  for (size_t i = 0; i < layers.size(); ++i) {
    h = layers[i](h);
    if (i + 1 < layers.size()) h = h.relu();
  }
  return h;
}

std::vector<Tensor> Mlp::Params() const {
  std::vector<Tensor> p;
  for (const Linear& l : layers) p.push_back(l.w), p.push_back(l.b);
  return p;
}

void Mlp::SetParams(const std::vector<Tensor>& params) {
  for (size_t i = 0; i < layers.size(); ++i) layers[i].w = params[2 * i], layers[i].b = params[2 * i + 1];
}

Block Block::Init(int64_t d, int64_t heads, int64_t ff, const std::string& device) {
  // torch.nn.LayerNorm starts at weight 1, bias 0. Braced init runs left to right: a fixed RNG order.
  auto ones = [&] { return Tensor::ones({d}, dtypes::float32, device).contiguous().realize(); };
  auto zeros = [&] { return Tensor::zeros({d}, dtypes::float32, device).contiguous().realize(); };
  return Block{heads,
               ones(),
               zeros(),
               ones(),
               zeros(),
               Linear::Init(d, 3 * d, device),
               Linear::Init(d, d, device),
               Linear::Init(d, ff, device),
               Linear::Init(ff, d, device)};
}

Tensor Block::Attention(const Tensor& x) const {
  int64_t bs = x.shape()[0], t = x.shape()[1], d = x.shape()[2], dh = d / heads;
  Tensor qkv_out = qkv(x);  // (B, T, 3d): q | k | v along the last axis, as torch's split
  auto head = [&](int64_t part) {
    return qkv_out.shrink({{0, bs}, {0, t}, {part * d, (part + 1) * d}}).reshape({bs, t, heads, dh}).permute({0, 2, 1, 3});
  };
  // softmax(q k^T / sqrt(dh), causal) v: the torch peer writes it out; it says it is the same math as
  // tinygrad's scaled_dot_product_attention(is_causal=True), which the front end has.
  Tensor o = head(0).scaled_dot_product_attention(head(1), head(2), std::nullopt, 0.0, true);  // (B, H, T, dh)
  return proj(o.permute({0, 2, 1, 3}).reshape({bs, t, d}));
}

Tensor Block::Forward(const Tensor& x) const {
  // torch.nn.LayerNorm = layernorm (no affine part in tg) * weight + bias.
  Tensor h = x + Attention(x.layernorm({-1}, 1e-5) * ln1_w + ln1_b);
  return h + fc2(fc1(h.layernorm({-1}, 1e-5) * ln2_w + ln2_b).gelu("tanh"));
}

std::vector<Tensor> Block::Params() const {
  return {ln1_w, ln1_b, ln2_w, ln2_b, qkv.w, qkv.b, proj.w, proj.b, fc1.w, fc1.b, fc2.w, fc2.b};
}

namespace {

// (N, C, H, W) already padded -> (N, C, oh, ow, kh, kw) windows, stride 1, without copying: repeating
// each spatial axis and re-reading it with row length (i + 1) shifts each kernel row by one, so element
// (a, b) of the (k, i + 1) view is input[a + b] (tinygrad's _pool).
Tensor Windows(const Tensor& x, int64_t kh, int64_t kw) {
  const Shape& s = x.shape();
  int64_t n = s[0], c = s[1], h = s[2], w = s[3], oh = h - kh + 1, ow = w - kw + 1;
  int64_t rh = (kh * (h + 1) + h - 1) / h, rw = (kw * (w + 1) + w - 1) / w;
  Tensor r = x.reshape({n, c, 1, h, 1, w}).expand({n, c, rh, h, rw, w}).reshape({n, c, rh * h, rw * w});
  r = r.shrink({{0, n}, {0, c}, {0, kh * (h + 1)}, {0, kw * (w + 1)}}).reshape({n, c, kh, h + 1, kw, w + 1});
  r = r.shrink({{0, n}, {0, c}, {0, kh}, {0, oh}, {0, kw}, {0, ow}});
  return r.permute({0, 1, 3, 5, 2, 4});
}

}  // namespace

Tensor Conv2dStride1(const Tensor& x, const Tensor& weight, int64_t pad) {
  const Shape& ws = weight.shape();
  int64_t cout = ws[0], cin = ws[1], kh = ws[2], kw = ws[3];
  Tensor win = Windows(x.pad({{0, 0}, {0, 0}, {pad, pad}, {pad, pad}}), kh, kw);  // (n, cin, oh, ow, kh, kw)
  int64_t n = win.shape()[0], oh = win.shape()[2], ow = win.shape()[3];
  // (n, 1, oh, ow, cin, kh, kw) * (1, cout, 1, 1, cin, kh, kw), reduced over the innermost three as tinygrad lays it.
  Tensor xe = win.permute({0, 2, 3, 1, 4, 5}).reshape({n, 1, oh, ow, cin, kh, kw});
  Tensor we = weight.reshape({1, cout, 1, 1, cin, kh, kw});
  return (xe * we).sum({4, 5, 6});
}

std::vector<Tensor> RealizeTogether(const std::vector<Tensor>& tensors) {
  std::vector<UOpRef> roots;
  std::vector<std::string> devices;
  for (const Tensor& t : tensors) roots.push_back(t.uop()), devices.push_back(t.device());
  std::vector<UOpRef> buffers = compiler::Realize(roots, devices);
  std::vector<Tensor> out;
  for (size_t i = 0; i < buffers.size(); ++i) out.emplace_back(buffers[i], devices[i]);
  return out;
}

void SyncDevice(const std::string& device) {
  absl::StatusOr<runtime::Device*> dev = runtime::DeviceRegistry::Global().GetDevice(device);
  if (!dev.ok()) throw Error(std::string(dev.status().message()));
  absl::Status st = (*dev)->Synchronize();
  if (!st.ok()) throw Error("synchronize " + device + ": " + std::string(st.message()));
}

}  // namespace tg::bench
