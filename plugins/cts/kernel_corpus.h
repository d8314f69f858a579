// kernel_corpus.h: the hand-written kernels the CTS runs, one file per kernel and dialect under
// kernels/<dialect>/: what the host never emits (host_corpus.h has what it does). Shipped as data so a
// vendor can read, compile and debug each one by hand (docs/plugins.md).
#ifndef TG_PLUGINS_CTS_KERNEL_CORPUS_H_
#define TG_PLUGINS_CTS_KERNEL_CORPUS_H_

#include <optional>
#include <string>
#include <vector>

#include "plugins/cts/plugin_handle.h"

namespace tg_cts {

// Every kernel's entry point is its file's stem. Semantics are the same in every dialect:
//   vadd(out f32*, a f32*, b f32*, n i32)     out[i] = a[i] + b[i] for global id i < n (dim 0)
//   scalars(out i64*, a i32, b i64)           out = {a + b, a, b}; one work item
//   index3d(out i32*)                         6 ints per work item at its linear global id:
//                                             group id x,y,z then local id x,y,z
//   max_group(out i32*)                       out[global id] = local id + 1000 * group id (dim 0)
//   add_one(buf i32*)                         buf[0] += 1; one work item
//   busy(out u32*, iters i32)                 out[0] = LCG iterated |iters| times from 1
//   syntax_error                              does not compile
//   fault()                                   faults (c: returns nonzero; cuda-c, hip-c: a trap);
//                                             none in opencl-c, where no fault is portable (PoCL's
//                                             CPU device would take the process down)
std::vector<std::string> CorpusDialects();  // dialects with a corpus: "c", "opencl-c", ...

// The source of |name| in |dialect|, or nullopt when the corpus lacks it. For "c" the header's
// TG_C_DIALECT_PRELUDE is put in front, as a code generator would.
std::optional<std::string> KernelSource(const Plugin& p, const std::string& dialect,
                                        const std::string& name);

// The host reference of busy().
uint32_t BusyReference(int32_t iters);

}  // namespace tg_cts

#endif  // TG_PLUGINS_CTS_KERNEL_CORPUS_H_
