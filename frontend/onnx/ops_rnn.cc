// The recurrent ONNX ops RNN, GRU and LSTM, with ONNX's gate orders (GRU z, r, h; LSTM i, o, f, c), biases
// [Wb, Rb] per direction, configurable activations, clip, peepholes, sequence_lens and both layouts. The time
// loop is unrolled into the graph; steps past a batch entry's sequence_lens keep its state and output zeros,
// which also starts that entry's reverse pass at its own last step.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "frontend/onnx/op_registry.h"

namespace tg::onnx {
namespace {

using Ctx = OpContext;

enum class CellKind { kRnn, kGru, kLstm };

struct CellSpec {
  const char* op;
  int64_t gates;
  std::vector<std::string> default_activations;  // per direction
};

const CellSpec& Spec(CellKind kind) {
  static const CellSpec rnn{"RNN", 1, {"Tanh"}}, gru{"GRU", 3, {"Sigmoid", "Tanh"}},
      lstm{"LSTM", 4, {"Sigmoid", "Tanh", "Tanh"}};
  return kind == CellKind::kRnn ? rnn : kind == CellKind::kGru ? gru : lstm;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

// One of ONNX's recurrent activation functions with its alpha and beta.
struct Activation {
  std::string name;  // lower case
  double alpha = 0, beta = 0;

  Tensor operator()(const Tensor& x) const {
    if (name == "tanh") return x.tanh();
    if (name == "sigmoid") return x.sigmoid();
    if (name == "relu") return x.relu();
    if (name == "affine") return x * alpha + beta;
    if (name == "leakyrelu") return x.leaky_relu(alpha);
    if (name == "thresholdedrelu") return x.gt(alpha).where(x, 0.0);
    if (name == "scaledtanh") return (x * beta).tanh() * alpha;
    if (name == "hardsigmoid") return x.hardsigmoid(alpha, beta);
    if (name == "elu") return x.elu(alpha);
    if (name == "softsign") return x.softsign();
    return x.softplus();  // "softplus"; Parse admits nothing else
  }
};

// The default alpha and beta of each supported activation (ONNX Runtime's), and whether it reads them.
struct ActivationDefaults {
  std::optional<double> alpha, beta;
};
const std::map<std::string, ActivationDefaults>& SupportedActivations() {
  static const std::map<std::string, ActivationDefaults> table = {
      {"tanh", {}},          {"sigmoid", {}},          {"relu", {}},
      {"affine", {1.0, 0.0}}, {"leakyrelu", {0.01, {}}}, {"thresholdedrelu", {1.0, {}}},
      {"scaledtanh", {1.0, 1.0}}, {"hardsigmoid", {0.2, 0.5}}, {"elu", {1.0, {}}},
      {"softsign", {}},      {"softplus", {}}};
  return table;
}

// activations, activation_alpha and activation_beta: one function per gate role and direction; alphas and
// betas are consumed in order by the functions that take them.
std::vector<Activation> ParseActivations(const Ctx& c, const CellSpec& spec, int64_t directions) {
  std::vector<std::string> names;
  if (c.has_attr("activations")) {
    const auto& attr = c.node().attrs.at("activations");
    if (const auto* list = std::get_if<std::vector<std::string>>(&attr)) names = *list;
    else if (const auto* one = std::get_if<std::string>(&attr)) names = {*one};
    else c.fail("attribute \"activations\" must be a list of strings");
  } else {
    for (int64_t d = 0; d < directions; ++d)
      names.insert(names.end(), spec.default_activations.begin(), spec.default_activations.end());
  }
  const size_t per_direction = spec.default_activations.size();
  if (names.size() == per_direction && directions == 2) {  // one set for both directions
    std::vector<std::string> forward = names;
    names.insert(names.end(), forward.begin(), forward.end());
  }
  if (names.size() != per_direction * static_cast<size_t>(directions))
    c.fail("activations has " + std::to_string(names.size()) + " entries; " + spec.op + " needs " +
           std::to_string(per_direction) + " per direction (" + std::to_string(directions) + " directions)");
  std::vector<double> alphas = c.attr_floats("activation_alpha").value_or(std::vector<double>{});
  std::vector<double> betas = c.attr_floats("activation_beta").value_or(std::vector<double>{});
  size_t next_alpha = 0, next_beta = 0;
  std::vector<Activation> out;
  for (const std::string& n : names) {
    auto it = SupportedActivations().find(Lower(n));
    if (it == SupportedActivations().end())
      c.fail("activation \"" + n + "\" is not supported; supported: Tanh, Sigmoid, Relu, Affine, LeakyRelu, "
             "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus");
    Activation a{it->first};
    if (it->second.alpha) a.alpha = next_alpha < alphas.size() ? alphas[next_alpha++] : *it->second.alpha;
    if (it->second.beta) a.beta = next_beta < betas.size() ? betas[next_beta++] : *it->second.beta;
    out.push_back(a);
  }
  return out;
}

// Everything one direction's loop reads.
struct Direction {
  Tensor r;                        // (gates * hidden, hidden)
  std::optional<Tensor> rb;        // (gates * hidden)
  std::optional<Tensor> peephole;  // (3 * hidden): i, o, f
  std::vector<Activation> f;       // the gate roles' functions
  bool reverse = false;
};

struct Config {
  CellKind kind;
  int64_t hidden;
  std::optional<double> clip;
  bool linear_before_reset = false;
};

Tensor Clip(const Config& cfg, const Tensor& x) { return cfg.clip ? x.clip(-*cfg.clip, *cfg.clip) : x; }

// Block |i| of |gates| along the last axis (the hidden-sized slices of a stacked projection).
Tensor Block(const Tensor& t, int64_t i, int64_t hidden) {
  std::vector<std::pair<int64_t, int64_t>> bounds;
  for (int64_t d = 0; d + 1 < t.ndim(); ++d) bounds.emplace_back(0, t.shape()[static_cast<size_t>(d)]);
  bounds.emplace_back(i * hidden, (i + 1) * hidden);
  return t.shrink(bounds);
}

// One step: |xp| is x W^T + Wb for this step, (batch, gates * hidden); returns h and, for LSTM, c.
std::vector<Tensor> Step(const Config& cfg, const Direction& d, const Tensor& xp, const Tensor& h,
                         const std::optional<Tensor>& c) {
  const int64_t H = cfg.hidden;
  auto rb = [&](int64_t i) { return d.rb ? std::optional(Block(*d.rb, i, H)) : std::nullopt; };
  auto rows = [&](int64_t i) { return d.r.shrink({{i * H, (i + 1) * H}, {0, H}}); };
  if (cfg.kind == CellKind::kRnn) return {d.f[0](Clip(cfg, xp + h.linear(d.r.transpose(), d.rb)))};
  if (cfg.kind == CellKind::kGru) {
    Tensor z = d.f[0](Clip(cfg, Block(xp, 0, H) + h.linear(rows(0).transpose(), rb(0))));
    Tensor r = d.f[0](Clip(cfg, Block(xp, 1, H) + h.linear(rows(1).transpose(), rb(1))));
    Tensor recurrent = cfg.linear_before_reset ? r * h.linear(rows(2).transpose(), rb(2))
                                               : (r * h).linear(rows(2).transpose(), rb(2));
    Tensor candidate = d.f[1](Clip(cfg, Block(xp, 2, H) + recurrent));
    return {candidate + z * (h - candidate)};
  }
  Tensor gates = xp + h.linear(d.r.transpose(), d.rb);
  auto peep = [&](int64_t i, const Tensor& state) {
    Tensor pre = Block(gates, i, H);
    return d.peephole ? pre + Block(*d.peephole, i, H) * state : pre;
  };
  Tensor i = d.f[0](Clip(cfg, peep(0, *c)));
  Tensor f = d.f[0](Clip(cfg, peep(2, *c)));
  Tensor cand = d.f[1](Clip(cfg, Block(gates, 3, H)));
  Tensor new_c = f * *c + i * cand;
  Tensor o = d.f[0](Clip(cfg, peep(1, new_c)));
  return {o * d.f[2](new_c), new_c};
}

// A node input of the expected shape, or the op's error naming it.
Tensor Checked(const Ctx& c, size_t i, const char* name, const Shape& want) {
  const Tensor& t = c.in(i);
  if (t.shape() != want) c.fail(std::string(name) + " must be " + ShapeString(want) + "; got " + ShapeString(t.shape()));
  return t;
}

std::vector<Tensor> Recurrent(Ctx& c, CellKind kind) {
  const CellSpec& spec = Spec(kind);
  const std::string direction = c.attr_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    c.fail("direction \"" + direction + "\" is not supported; use forward, reverse or bidirectional");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const int64_t layout = c.attr_int("layout", 0);
  if (layout != 0 && layout != 1) c.fail("layout must be 0 or 1; got " + std::to_string(layout));
  if (kind == CellKind::kLstm && c.attr_int("input_forget", 0) != 0)
    c.fail("input_forget=" + std::to_string(c.attr_int("input_forget", 0)) + " is not supported; only 0");
  Config cfg{kind, c.attr_int("hidden_size", 0), std::nullopt, c.attr_int("linear_before_reset", 0) != 0};
  if (c.has_attr("clip")) cfg.clip = c.attr_float("clip", 0);
  std::vector<Activation> acts = ParseActivations(c, spec, dirs);

  const Tensor& x_in = c.in(0);
  if (x_in.ndim() != 3)
    c.fail("X must be 3-D, " + std::string(layout ? "(batch, seq, input)" : "(seq, batch, input)") + "; got " +
           ShapeString(x_in.shape()));
  Tensor x = layout ? x_in.transpose(0, 1) : x_in;  // (seq, batch, input)
  const int64_t steps = x.shape()[0], batch = x.shape()[1], input = x.shape()[2];
  const Tensor& w_in = c.in(1);
  if (cfg.hidden <= 0) {  // hidden_size is optional: W says it
    if (w_in.ndim() != 3 || w_in.shape()[1] % spec.gates != 0) c.fail("W must be (directions, gates * hidden, input)");
    cfg.hidden = w_in.shape()[1] / spec.gates;
  }
  const int64_t H = cfg.hidden, G = spec.gates;
  Tensor w = Checked(c, 1, "W", {dirs, G * H, input});
  Tensor r = Checked(c, 2, "R", {dirs, G * H, H});
  std::optional<Tensor> b = c.has(3) ? std::optional(Checked(c, 3, "B", {dirs, 2 * G * H})) : std::nullopt;
  std::optional<Tensor> lens;
  if (c.has(4)) {
    if (c.in(4).shape() != Shape{batch}) c.fail("sequence_lens must be (" + std::to_string(batch) + ")");
    lens = c.in(4).cast(dtypes::int64).reshape({batch, 1});
  }
  const Shape state_shape = layout ? Shape{batch, dirs, H} : Shape{dirs, batch, H};
  auto initial = [&](size_t i, const char* name) -> std::optional<Tensor> {
    if (!c.has(i)) return std::nullopt;
    Tensor t = Checked(c, i, name, state_shape);
    return layout ? t.transpose(0, 1) : t;  // (dirs, batch, H)
  };
  std::optional<Tensor> h0 = initial(5, "initial_h");
  std::optional<Tensor> c0 = kind == CellKind::kLstm ? initial(6, "initial_c") : std::nullopt;
  std::optional<Tensor> p;
  if (kind == CellKind::kLstm && c.has(7)) p = Checked(c, 7, "P", {dirs, 3 * H});

  auto pick = [](const Tensor& t, int64_t d) {
    Shape rest(t.shape().begin() + 1, t.shape().end());
    std::vector<std::pair<int64_t, int64_t>> bounds{{d, d + 1}};
    for (int64_t s : rest) bounds.emplace_back(0, s);
    return t.shrink(bounds).reshape(rest);
  };
  std::vector<Tensor> ys, hs, cs;
  for (int64_t d = 0; d < dirs; ++d) {
    const size_t per = spec.default_activations.size();
    Direction dir{pick(r, d), std::nullopt, p ? std::optional(pick(*p, d)) : std::nullopt,
                  std::vector<Activation>(acts.begin() + d * per, acts.begin() + (d + 1) * per),
                  direction == "reverse" || d == 1};
    std::optional<Tensor> wb;
    if (b) {
      Tensor bd = pick(*b, d);
      wb = bd.shrink({{0, G * H}}), dir.rb = bd.shrink({{G * H, 2 * G * H}});
    }
    Tensor xp = x.linear(pick(w, d).transpose(), wb);  // every step's input projection at once
    Tensor h = h0 ? pick(*h0, d) : Tensor::zeros({batch, H}, x.dtype(), x.device());
    std::optional<Tensor> cell;
    if (kind == CellKind::kLstm) cell = c0 ? pick(*c0, d) : Tensor::zeros({batch, H}, x.dtype(), x.device());
    std::vector<Tensor> outs;
    for (int64_t s = 0; s < steps; ++s) {
      const int64_t t = dir.reverse ? steps - 1 - s : s;
      Tensor xt = xp.shrink({{t, t + 1}, {0, batch}, {0, G * H}}).reshape({batch, G * H});
      std::vector<Tensor> next = Step(cfg, dir, xt, h, cell);
      if (lens) {
        Tensor live = lens->gt(t);  // (batch, 1): this step is inside the entry's sequence
        h = live.where(next[0], h);
        if (cell) cell = live.where(next[1], *cell);
        outs.push_back(live.where(next[0], 0.0));
      } else {
        h = next[0];
        if (cell) cell = next[1];
        outs.push_back(h);
      }
    }
    if (dir.reverse) std::reverse(outs.begin(), outs.end());
    ys.push_back(outs[0].stack(std::vector<Tensor>(outs.begin() + 1, outs.end()), 0));  // (seq, batch, H)
    hs.push_back(h);
    if (cell) cs.push_back(*cell);
  }
  auto join = [](const std::vector<Tensor>& parts, int dim) {
    return parts[0].stack(std::vector<Tensor>(parts.begin() + 1, parts.end()), dim);
  };
  Tensor y = join(ys, 1);  // (seq, dirs, batch, H)
  Tensor y_h = join(hs, 0);  // (dirs, batch, H)
  std::vector<Tensor> out{layout ? y.permute({2, 0, 1, 3}) : y, layout ? y_h.transpose(0, 1) : y_h};
  if (kind == CellKind::kLstm) {
    Tensor y_c = join(cs, 0);
    out.push_back(layout ? y_c.transpose(0, 1) : y_c);
  }
  return out;
}

std::vector<Tensor> Rnn(Ctx& c) { return Recurrent(c, CellKind::kRnn); }
std::vector<Tensor> Gru(Ctx& c) { return Recurrent(c, CellKind::kGru); }
std::vector<Tensor> Lstm(Ctx& c) { return Recurrent(c, CellKind::kLstm); }

}  // namespace

void RegisterRnnOps(OpRegistry& r) {
  r.add("RNN", Rnn);
  r.add("GRU", Gru);
  r.add("LSTM", Lstm);
}

}  // namespace tg::onnx
