// tiers.h: the case lists of the five CTS tiers, one file each, T2 two (docs/plugins.md).
// The runner runs them in this order; a tier's cases run in the order listed.
#ifndef TG_PLUGINS_CTS_TIERS_H_
#define TG_PLUGINS_CTS_TIERS_H_

#include <vector>

#include "plugins/cts/cts_case.h"
#include "plugins/cts/plugin_handle.h"

namespace tg_cts {

std::vector<Case> Tier0AbiCases();         // tier0_abi.cc: exports, versioning, struct_size, errors
std::vector<Case> Tier1MemoryCases();      // tier1_memory.cc: alloc, copies, leaks
std::vector<Case> Tier2ProgramCases();     // tier2_programs.cc: the corpus per declared dialect
// tier2_host_kernels.cc: the host corpus (host_corpus.h), one case per kernel of its manifest, which
// |config| (--host-corpus, the runfiles) locates.
std::vector<Case> Tier2HostKernelCases(const Plugin& config);
std::vector<Case> Tier3ExecutionCases();   // tier3_execution.cc: ordering, events, timing
std::vector<Case> Tier3OrderingCases();    // tier3_ordering.cc: ABI 1.1 ordering across devices, host memory
std::vector<Case> Tier4RobustnessCases();  // tier4_robustness.cc: threads, teardown, re-init

}  // namespace tg_cts

#endif  // TG_PLUGINS_CTS_TIERS_H_
