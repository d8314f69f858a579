// The heuristic's opts for a kernel as a CPU of a given SIMD width, two cores and fixed caches would
// choose them, whatever CPU runs the test: tests of vector choices state them for AVX2 (32 bytes) and
// AVX-512 (64), and for a dialect with one-instruction masked vector accesses (llvm-ir) or without
// (c). Also the reduce kernel of a tensor's schedule, which those tests hand it.
#ifndef TG_TESTS_COMPILER_HEURISTIC_AT_WIDTH_H_
#define TG_TESTS_COMPILER_HEURISTIC_AT_WIDTH_H_

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/heuristic.h"
#include "compiler/codegen/kernel.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "runtime/device_registry.h"

namespace tg::compiler {

inline Kernel HeuristicAtWidth(const UOpRef& ast, int vector_bytes, bool masked_vectors = false) {
  const runtime::DeviceInfo& cpu = runtime::DeviceRegistry::Global().GetDevice("CPU").value()->info();
  Target target = Target::For(cpu);
  target.vectors = true;
  target.vector_bytes = vector_bytes;
  target.masked_vectors = masked_vectors;
  target.cores = 2;
  // The caches of one Zen 5 core, not the host's: blocking opts depend on them and renumber
  // the axes the vector tests look at.
  target.l1_bytes = int64_t{48} << 10;
  target.l2_bytes = int64_t{1} << 20;
  Kernel k = StartKernel(ast, cpu);
  ApplyHeuristic(k, target);
  return k;
}

// The AST of the first kernel of |t|'s schedule that reduces (a test failure, and null, if none does).
inline UOpRef ReduceKernelOf(const Tensor& t) {
  for (const auto& item : CreateSchedule({t.uop()}, {t.device()}).items)
    for (const UOpRef& u : item.ast->toposort())
      if (u->op() == Ops::kReduce) return item.ast;
  ADD_FAILURE() << "no reduce kernel";
  return nullptr;
}

}  // namespace tg::compiler

#endif  // TG_TESTS_COMPILER_HEURISTIC_AT_WIDTH_H_
