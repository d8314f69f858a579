#include "tests/fuzz/differential.h"

#include <cmath>
#include <cstdio>
#include <exception>

#include "tests/fuzz/reference_eval.h"
#include "tests/fuzz/tensor_eval.h"

namespace tg::fuzz {
namespace {

std::optional<std::string> CompareOutput(size_t which, int step, const std::vector<float>& got, const RefArray& want,
                                         CheckStats* stats) {
  char buf[256];
  if (got.size() != want.value.size()) {
    std::snprintf(buf, sizeof buf, "output %zu (t%d): %zu elements, reference has %zu", which, step, got.size(),
                  want.value.size());
    return buf;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    double w = want.value[i], bound = 2 * want.err[i] + 1e-6 * (1 + std::abs(w));
    if (!std::isfinite(bound)) {
      ++stats->skipped;
      continue;
    }
    ++stats->compared;
    if (std::abs(got[i] - w) <= bound) continue;  // NaN fails here too
    std::snprintf(buf, sizeof buf, "output %zu (t%d) at flat index %zu: got %.9g, reference %.9g (allowed error %.3g)",
                  which, step, i, static_cast<double>(got[i]), w, bound);
    return buf;
  }
  return std::nullopt;
}

// Drops steps nothing reaches from the outputs and renumbers the rest.
Program DropUnused(const Program& p) {
  std::vector<bool> used(p.steps.size(), false);
  for (int o : p.outputs) used[o] = true;
  for (int i = static_cast<int>(p.steps.size()) - 1; i >= 0; --i)
    if (used[i])
      for (int s : p.steps[i].src) used[s] = true;
  std::vector<int> renumber(p.steps.size(), -1);
  Program out;
  out.seed = p.seed;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    if (!used[i]) continue;
    renumber[i] = static_cast<int>(out.steps.size());
    Step s = p.steps[i];
    for (int& src : s.src) src = renumber[src];
    out.steps.push_back(std::move(s));
  }
  for (int o : p.outputs) out.outputs.push_back(renumber[o]);
  return out;
}

bool IsThrow(const std::optional<std::string>& r) { return r && r->rfind("threw", 0) == 0; }

}  // namespace

std::optional<std::string> CheckProgram(const Program& program, const std::string& device, CheckStats* stats) {
  CheckStats local;
  if (!stats) stats = &local;
  std::vector<RefArray> ref = EvalProgram(program);
  std::vector<std::vector<float>> got;
  try {
    got = RunOnDevice(program, device);
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
  for (size_t k = 0; k < program.outputs.size(); ++k)
    if (auto bad = CompareOutput(k, program.outputs[k], got[k], ref[program.outputs[k]], stats)) return bad;
  return std::nullopt;
}

Program ShrinkFailure(const Program& program, const std::string& device) {
  const bool threw = IsThrow(CheckProgram(program, device));
  auto still_fails = [&](const Program& p) {
    auto r = CheckProgram(p, device);
    return r && IsThrow(r) == threw;
  };
  Program best = program;
  for (size_t k = 0; k < program.steps.size(); ++k) {  // earliest failing prefix
    Program cut = program;
    cut.outputs = {static_cast<int>(k)};
    cut = DropUnused(cut);
    if (still_fails(cut)) {
      best = cut;
      break;
    }
  }
  for (bool changed = true; changed;) {  // replace steps by their values while it still fails
    changed = false;
    std::vector<RefArray> ref = EvalProgram(best);
    for (size_t i = 0; i + 1 < best.steps.size(); ++i) {
      if (best.steps[i].kind == StepKind::kInput) continue;
      Program trial = best;
      Step& s = trial.steps[i];
      s = Step{.kind = StepKind::kInput, .dims = s.dims};
      for (double v : ref[i].value) s.data.push_back(static_cast<float>(v));
      trial = DropUnused(trial);
      if (still_fails(trial)) {
        best = trial;
        changed = true;
        break;
      }
    }
  }
  return best;
}

}  // namespace tg::fuzz
