#include "compiler/codegen/beam.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_cat.h"
#include "compiler/errors.h"
#include "compiler/schedule/buffer_node.h"
#include "compiler/codegen/codegen.h"
#include "compiler/schedule/bound_variables.h"
#include "compiler/codegen/heuristic.h"
#include "ir/env.h"
#include "ir/error.h"
#include "ir/stable_hash.h"
#include "runtime/buffer.h"
#include "runtime/disk_cache.h"

namespace tg::compiler {
namespace {

using Clock = std::chrono::steady_clock;

// tinygrad's action amounts (opt/search.py), plus the SIMD widths our CPU vectors use.
constexpr int64_t kUpcastAmounts[] = {2, 3, 4, 5, 7, 8, 16};
constexpr int64_t kUnrollAmounts[] = {2, 4, 7, 8, 16, 32};
constexpr int64_t kLocalAmounts[] = {2, 3, 4, 8, 13, 16, 29, 32, 64, 128, 256};
constexpr int64_t kThreadAmounts[] = {2, 3, 4, 5, 8, 12, 16, 24, 32, 64};
constexpr int64_t kGroupAmounts[] = {4, 8, 16};
constexpr int64_t kBlockAmounts[] = {64, 128, 256, 512};
constexpr int64_t kPadToAmount = 32;
constexpr int64_t kMaxUpcastProduct = 256;  // BEAM_UPCAST_MAX: registers and code size
constexpr int kTimedRuns = 3;

struct Candidate {
  std::vector<Opt> opts;
  double us = 0;
};

// Zeroed buffers for the kernel's parameters, sized by the largest index each one is read or
// written at (range analysis of the index math), so any candidate stays in bounds.
struct Scratch {
  std::vector<std::shared_ptr<runtime::Buffer>> buffers;
  std::vector<runtime::KernelArg> args;
};

Scratch MakeScratch(const UOpRef& ast, runtime::Device& device) {
  absl::flat_hash_map<int64_t, int64_t> bytes;  // parameter number -> bytes
  for (const UOpRef& u : ast->toposort()) {
    if (u->op() != Ops::kIndex || u->src(0)->op() != Ops::kDefineGlobal) continue;
    int64_t elements = u->src(1)->vmax() + 1;
    if (elements <= 0 || elements > (int64_t{1} << 36))
      throw Error("BEAM: cannot bound the size of kernel parameter " + std::to_string(u->src(0)->arg_as<int64_t>()));
    int64_t& b = bytes[u->src(0)->arg_as<int64_t>()];
    b = std::max<int64_t>(b, elements * u->src(0)->dtype().itemsize());
  }
  Scratch s;
  for (int64_t p = 0; p < static_cast<int64_t>(bytes.size()); ++p) {
    if (!bytes.contains(p)) throw Error("BEAM: kernel parameter " + std::to_string(p) + " is never indexed");
    auto buffer = runtime::Buffer::Create(device, static_cast<uint64_t>(bytes[p]));
    std::vector<unsigned char> zeros(bytes[p], 0);  // zeros: data-dependent indices stay in bounds
    ThrowIfError(buffer->CopyIn(zeros.data(), zeros.size()));
    s.args.push_back(runtime::KernelArg::Buf(buffer.get()));
    s.buffers.push_back(std::move(buffer));
  }
  // Variables at their largest value: the search times the longest loops a symbolic length allows (the
  // buffers above are sized for every value, as their indices' ranges are).
  for (const UOpRef& v : KernelVariables(ast)) s.args.push_back(runtime::KernelArg::I32(static_cast<int32_t>(v->vmax())));
  return s;
}

// A grid far larger than the device launches a slice of its workgroups (outer dimensions first,
// as tinygrad shrinks the global size) and the time is scaled back up: an unoptimized kernel of a
// big matmul would otherwise take seconds per run. Returns the scale factor.
double ShrinkGrid(runtime::LaunchDims& dims, const runtime::DeviceInfo& info) {
  const uint64_t cap = std::max<uint64_t>(64, uint64_t{16} * info.compute_units);
  auto total = [&] { return uint64_t{dims.num_groups[0]} * dims.num_groups[1] * dims.num_groups[2]; };
  const uint64_t full = total();
  for (int d = 2; d >= 0 && total() > cap; --d)
    while (total() > cap && dims.num_groups[d] > 1) dims.num_groups[d] = (dims.num_groups[d] + 1) / 2;
  return static_cast<double>(full) / static_cast<double>(total());
}

void LogSkip(const std::vector<Opt>& opts, const std::string& why) {
  if (DebugLevel() < 2) return;
  std::fprintf(stderr, "BEAM: skipping [%s]: %s\n", OptsToString(opts).c_str(), why.substr(0, 300).c_str());
}

// Compiles and times candidates of one kernel on one device, within the search's budget.
class CandidateTimer {
 public:
  CandidateTimer(const UOpRef& ast, runtime::Device& device)
      : ast_(ast), device_(device), scratch_(MakeScratch(ast, device)),
        deadline_(Clock::now() + std::chrono::seconds(GetEnvInt("BEAM_TIMEOUT_S", 30))),
        max_candidates_(GetEnvInt("BEAM_MAX_CANDIDATES", 1000)) {}

  bool Exhausted() const { return Clock::now() >= deadline_ || timed_ >= max_candidates_; }
  int timed() const { return timed_; }

  // Times each list (compiling them in parallel first); lists that fail are dropped, as are those
  // whose code equals an earlier candidate's. |cutoff_us|: a run slower than this stops early.
  std::vector<Candidate> TimeAll(const std::vector<std::vector<Opt>>& lists, double cutoff_us);

 private:
  struct Built {
    std::vector<Opt> opts;
    GeneratedKernel kernel;
    absl::StatusOr<std::shared_ptr<runtime::Program>> program = absl::UnknownError("not compiled");
  };
  std::vector<Built> Build(const std::vector<std::vector<Opt>>& lists);
  void CompileAll(std::vector<Built>& built);
  std::optional<double> Time(const Built& b, double cutoff_us);

  UOpRef ast_;
  runtime::Device& device_;
  Scratch scratch_;
  Clock::time_point deadline_;
  int64_t max_candidates_;
  int timed_ = 0;
  absl::flat_hash_set<std::string> seen_sources_;
};

std::vector<CandidateTimer::Built> CandidateTimer::Build(const std::vector<std::vector<Opt>>& lists) {
  std::vector<Built> built;
  for (const std::vector<Opt>& opts : lists) {
    if (static_cast<int64_t>(built.size()) + timed_ >= max_candidates_) break;
    try {
      GeneratedKernel k = GenerateKernel(ast_, TargetOf(device_), opts);
      if (!seen_sources_.insert(k.source.source).second) continue;  // same code as an earlier candidate
      built.push_back({opts, std::move(k)});
    } catch (const Error& e) {
      LogSkip(opts, e.what());
    }
  }
  return built;
}

// Compiles are the slow part (a C compiler per candidate): one worker per core.
void CandidateTimer::CompileAll(std::vector<Built>& built) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < built.size(); i = next++) {
      if (Clock::now() >= deadline_) return;
      built[i].program = device_.CompileUncached(built[i].kernel.source);
    }
  };
  unsigned workers = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
}

std::optional<double> CandidateTimer::Time(const Built& b, double cutoff_us) {
  runtime::LaunchDims dims = b.kernel.dims;
  double scale = ShrinkGrid(dims, device_.info());
  double best = 0;
  for (int run = 0; run < kTimedRuns; ++run) {
    uint64_t ns = 0;
    if (absl::Status s = device_.Launch(**b.program, dims, scratch_.args, &ns); !s.ok()) {
      LogSkip(b.opts, std::string(s.message()));
      return std::nullopt;
    }
    double us = ns / 1e3 * scale;
    best = run == 0 ? us : std::min(best, us);
    if (best > cutoff_us) break;  // hopeless: a better run would not make it the winner
  }
  return best;
}

std::vector<Candidate> CandidateTimer::TimeAll(const std::vector<std::vector<Opt>>& lists, double cutoff_us) {
  std::vector<Built> built = Build(lists);
  CompileAll(built);
  std::vector<Candidate> out;
  for (const Built& b : built) {
    if (Clock::now() >= deadline_) break;
    if (!b.program.ok()) {
      LogSkip(b.opts, std::string(b.program.status().message()));
      continue;
    }
    ++timed_;
    if (std::optional<double> us = Time(b, cutoff_us)) out.push_back({b.opts, *us});
  }
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) { return a.us < b.us; });
  return out;
}

int64_t ExpandedProduct(const Kernel& k, AxisType type) {
  int64_t p = 1;
  for (const Kernel::Axis& a : k.axes())
    if (a.type == type) p *= a.extent();
  return p;
}

// Whether |k| (after one more opt) is still a kernel worth timing: bounded register expansion
// (code size and spills) and groups within the device's limit.
bool WithinLimits(const Kernel& k, const Target& target) {
  return ExpandedProduct(k, AxisType::kUpcast) * ExpandedProduct(k, AxisType::kUnroll) <= kMaxUpcastProduct &&
         k.GroupThreads() <= target.max_group_threads;
}

Kernel Replay(const Kernel& start, const std::vector<Opt>& opts) {
  Kernel k = start;
  for (const Opt& o : opts) k.Apply(o);
  return k;
}

// The starting beam: the unoptimized kernel and the heuristic's choice, so the search begins no
// worse than the default (tinygrad starts from the first alone).
std::vector<Candidate> StartingBeam(CandidateTimer& timer, const Kernel& start, const Target& target,
                                    BeamResult& result) {
  Kernel heuristic = start;
  ApplyHeuristic(heuristic, target);
  std::vector<Candidate> timed = timer.TimeAll({{}, heuristic.applied()}, 1e300);
  for (const Candidate& c : timed) (c.opts.empty() ? result.unoptimized_us : result.heuristic_us) = c.us;
  if (heuristic.applied().empty()) result.heuristic_us = result.unoptimized_us;
  if (timed.empty() && timer.Exhausted()) throw Error("BEAM: BEAM_TIMEOUT_S passed while building the starting kernels");
  if (timed.empty()) throw Error("BEAM: the kernel does not run even unoptimized (DEBUG=2 says why)");
  return timed;
}

// Winners depend on the device's code generator as well as the kernel: plugin, compile fingerprint
// and the dialects offered (the first one rendered decides the axis roles).
std::string DeviceKey(const runtime::DeviceInfo& info) {
  return absl::StrCat(info.plugin, "|", info.fingerprint, "|", absl::StrJoin(info.source_dialects, ","));
}

// A cached winner is replayed before it is trusted: opts from another codegen version may no longer apply.
std::optional<std::vector<Opt>> CachedWinner(runtime::DiskCache* disk, const std::string& ast_key,
                                             const runtime::Device& device, int width, const Kernel& start) {
  if (disk == nullptr || GetEnvInt("IGNORE_BEAM_CACHE", 0) != 0) return std::nullopt;
  std::optional<std::string> text = disk->GetBeam(ast_key, DeviceKey(device.info()), width);
  std::optional<std::vector<Opt>> opts = text ? ParseOpts(*text) : std::nullopt;
  if (!opts) return std::nullopt;
  try {
    Replay(start, *opts);
  } catch (const Error&) {
    return std::nullopt;
  }
  if (DebugLevel() >= 3) std::fprintf(stderr, "BEAM %s: cached [%s]\n", KernelName(start.ast()).c_str(), text->c_str());
  return opts;
}

void PrintResult(const UOpRef& ast, const BeamResult& r, double seconds) {
  std::fprintf(stderr, "BEAM %-24s [%s] %.1fus: %.2fx the heuristic (%.1fus), %.2fx unoptimized; %d candidates, %.1fs\n",
               KernelName(ast).c_str(), OptsToString(r.opts).c_str(), r.us,
               r.us > 0 ? r.heuristic_us / r.us : 0.0, r.heuristic_us, r.us > 0 ? r.unoptimized_us / r.us : 0.0,
               r.candidates, seconds);
}

}  // namespace

// Every opt tinygrad's action list would try on |k| (by axis role), kept if Kernel::Apply accepts it.
std::vector<std::vector<Opt>> BeamActions(const Kernel& base, const Target& target) {
  std::vector<std::vector<Opt>> out;
  auto consider = [&](OptOp op, int axis, int64_t amount) {
    Kernel k = base;
    try {
      k.Apply({op, axis, amount});
    } catch (const Error&) {
      return;  // illegal here (wrong role, amount does not divide): not a candidate
    }
    if (WithinLimits(k, target)) out.push_back(k.applied());
  };
  for (int i = 0; i < static_cast<int>(base.axes().size()); ++i) {
    AxisType t = base.axes()[i].type;
    int64_t extent = base.axes()[i].extent();
    bool output = t == AxisType::kGlobal || t == AxisType::kLoop;
    if (output) for (int64_t a : kUpcastAmounts) consider(OptOp::kUpcast, i, a);
    if (output && extent <= 16 && extent > 1) consider(OptOp::kUpcast, i, extent);  // tinygrad's amount 0: all of it
    if (t == AxisType::kReduce) for (int64_t a : kUnrollAmounts) consider(OptOp::kUnroll, i, a);
    if (t == AxisType::kReduce && extent <= 32 && extent > 1) consider(OptOp::kUnroll, i, extent);
    if (output && target.gpu) for (int64_t a : kLocalAmounts) consider(OptOp::kLocal, i, a);
    if (t == AxisType::kGlobal) for (int64_t a : kThreadAmounts) consider(OptOp::kThread, i, a);
    // tinygrad's GROUP/GROUPTOP, PADTO and SWAP actions, and BLOCK; Apply drops the illegal ones
    if (t == AxisType::kReduce)
      for (int64_t a : kGroupAmounts) consider(OptOp::kGroup, i, a), consider(OptOp::kGroupTop, i, a);
    if (t == AxisType::kReduce) for (int64_t a : kBlockAmounts) consider(OptOp::kBlock, i, a);
    if (t == AxisType::kReduce)
      for (size_t tc = 0; tc < target.tensor_cores.size(); ++tc) consider(OptOp::kTc, i, static_cast<int64_t>(tc));
    consider(OptOp::kPadTo, i, kPadToAmount);
    for (int j = i + 1; output && j < static_cast<int>(base.axes().size()); ++j) consider(OptOp::kSwap, i, j);
  }
  return out;
}


std::optional<std::vector<Opt>> ChooseOpts(const UOpRef& ast, runtime::Device& device) {
  if (GetEnvInt("NOOPT", 0) != 0) return std::vector<Opt>{};
  int width = static_cast<int>(GetEnvInt("BEAM", 0));
  if (width < 1) return std::nullopt;
  runtime::DiskCache* disk = runtime::DiskCache::Global();
  std::string ast_key = StableHash(ast);
  if (auto cached = CachedWinner(disk, ast_key, device, width, StartKernel(ast, TargetOf(device)))) return cached;
  Clock::time_point began = Clock::now();
  BeamResult result;
  try {
    result = BeamSearch(ast, device, width);
  } catch (const Error& e) {
    if (DebugLevel() >= 1) std::fprintf(stderr, "BEAM %s: %s; using the heuristic\n", KernelName(ast).c_str(), e.what());
    return std::nullopt;
  }
  if (DebugLevel() >= 2) PrintResult(ast, result, std::chrono::duration<double>(Clock::now() - began).count());
  if (disk != nullptr) disk->PutBeam(ast_key, DeviceKey(device.info()), width, OptsToString(result.opts));
  return result.opts;
}

BeamResult BeamSearch(const UOpRef& ast, runtime::Device& device, int width) {
  BeamResult result;
  CandidateTimer timer(ast, device);
  const Kernel start = StartKernel(ast, TargetOf(device));
  const Target& target = TargetOf(device);
  std::vector<Candidate> beam = StartingBeam(timer, start, target, result);
  Candidate best = beam.front();
  beam.resize(std::min<size_t>(beam.size(), width));
  absl::flat_hash_set<std::string> tried;
  while (!timer.Exhausted()) {
    std::vector<std::vector<Opt>> next;
    for (const Candidate& c : beam)
      for (std::vector<Opt>& opts : BeamActions(Replay(start, c.opts), target))
        if (tried.insert(OptsToString(opts)).second) next.push_back(std::move(opts));
    std::vector<Candidate> timed = timer.TimeAll(next, best.us * 3);
    if (timed.empty() || timed.front().us >= best.us * 0.99) break;  // no real gain: stop, as tinygrad does
    best = timed.front();
    beam.assign(timed.begin(), timed.begin() + std::min<size_t>(timed.size(), width));
  }
  result.opts = best.opts;
  result.us = best.us;
  result.candidates = timer.timed();
  return result;
}

std::string OptsToString(const std::vector<Opt>& opts) {
  std::vector<std::string> parts;
  for (const Opt& o : opts) {
    parts.push_back(absl::StrCat(OptOpName(o.op), ":", o.axis, ":", o.amount));
  }
  return absl::StrJoin(parts, ";");
}

std::optional<std::vector<Opt>> ParseOpts(std::string_view text) {
  std::vector<Opt> out;
  std::string rest(text);
  while (!rest.empty()) {
    size_t end = rest.find(';');
    std::string part = rest.substr(0, end);
    rest = end == std::string::npos ? "" : rest.substr(end + 1);
    char name[16] = {};
    long long axis = 0, amount = 0;
    char tail = 0;
    if (std::sscanf(part.c_str(), "%15[A-Z]:%lld:%lld%c", name, &axis, &amount, &tail) != 3) return std::nullopt;
    std::optional<OptOp> op = OptOpFromName(name);
    if (!op) return std::nullopt;
    out.push_back({*op, static_cast<int>(axis), amount});
  }
  return out;
}

}  // namespace tg::compiler
