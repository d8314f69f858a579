// BEAM=N: searches a kernel's opts by compiling and timing candidates on the device itself
// (tinygrad's beam_search); winners are kept in the sqlite DiskCache. A codegen step (docs/architecture.md).
#ifndef TG_COMPILER_CODEGEN_BEAM_H_
#define TG_COMPILER_CODEGEN_BEAM_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/codegen/kernel.h"
#include "compiler/codegen/opt.h"
#include "compiler/target.h"
#include "ir/uop.h"
#include "runtime/device.h"

namespace tg::compiler {

struct BeamResult {
  std::vector<Opt> opts;     // the winner, replayable on StartKernel(ast, device.info())
  double us = 0;             // its measured time
  double unoptimized_us = 0, heuristic_us = 0;  // the starting points (0 when they failed to run)
  int candidates = 0;        // candidates compiled and timed
};

// Keeps the |width| fastest opt lists per round, each round extending them by one legal opt, until
// no candidate beats the best so far by 1%, BEAM_TIMEOUT_S (default 30) seconds pass, or
// BEAM_MAX_CANDIDATES (default 1000) candidates were timed. Candidates run on zeroed scratch
// buffers sized from the AST's index ranges; a huge grid launches a slice of its workgroups and the
// time is scaled up. Candidates that fail to build, compile or run are skipped (logged at DEBUG>=2).
// Throws tg::Error when not even the unoptimized kernel runs or the scratch cannot be sized.
BeamResult BeamSearch(const UOpRef& ast, runtime::Device& device, int width);

// The candidates one search round makes from |k|: each opt of the action list (tinygrad's, plus
// SWAP and BLOCK) that applies to |k| within the register and group limits, appended to k's opts.
std::vector<std::vector<Opt>> BeamActions(const Kernel& k, const Target& target);

// The opts realize applies to |ast| on |device|: none under NOOPT=1; with BEAM=N the winner from
// the disk cache (IGNORE_BEAM_CACHE=1 skips it), else a fresh BeamSearch whose winner is stored;
// nullopt otherwise (GenerateKernel's heuristic). A failed search falls back to nullopt.
std::optional<std::vector<Opt>> ChooseOpts(const UOpRef& ast, runtime::Device& device);

// "UPCAST:0:4;UNROLL:2:8": the disk cache's text for an opt list. Parse returns nullopt for text
// it does not understand (an older format is then searched again, not trusted).
std::string OptsToString(const std::vector<Opt>& opts);
std::optional<std::vector<Opt>> ParseOpts(std::string_view text);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_BEAM_H_
