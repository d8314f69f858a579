// The memory budget of the file loaders (ONNX, safetensors, IDX, tokenizer files): what a file declares
// (a header length, a tensor's dims, an external data range) is checked against it, and against the
// file's own size, before anything is allocated, so a hostile file cannot make us allocate what the
// machine does not have. docs/environment.md, TG_LOAD_MAX_BYTES.
#ifndef TG_FRONTEND_LOAD_BUDGET_H_
#define TG_FRONTEND_LOAD_BUDGET_H_

#include <cstdint>
#include <string_view>

namespace tg {

// The most bytes one loader may allocate for one thing a file declares: TG_LOAD_MAX_BYTES when it is a
// positive whole number, else the machine's physical memory. Read on every call.
uint64_t LoadBudgetBytes();

// Throws tg::Error "<where>: <field> is <bytes> bytes, more than the load budget of <budget> bytes
// (TG_LOAD_MAX_BYTES ...)" when |bytes| is past LoadBudgetBytes().
void CheckLoadBudget(std::string_view where, std::string_view field, uint64_t bytes);

}  // namespace tg

#endif  // TG_FRONTEND_LOAD_BUDGET_H_
