#include "compiler/tensor_core.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace tg::compiler {
namespace {

int ElementCount(const CoordinateBits& a, const CoordinateBits& b) {
  int bits = 0;
  for (const CoordinateBits* c : {&a, &b})
    for (int8_t bit : *c) bits += bit >= kElement;
  return 1 << bits;
}

constexpr int8_t L(int i) { return static_cast<int8_t>(kLane + i); }
constexpr int8_t E(int i) { return static_cast<int8_t>(kElement + i); }

struct Layout {
  CoordinateBits a_row, a_k, b_k, b_col, c_row, c_col;
};

TensorCore Core(std::string name, int m, int n, int k, int threads, DType input, Layout l) {
  TensorCore tc;
  tc.name = std::move(name);
  tc.m = m, tc.n = n, tc.k = k, tc.threads = threads, tc.input = input;
  tc.a_row = l.a_row, tc.a_k = l.a_k, tc.b_k = l.b_k, tc.b_col = l.b_col, tc.c_row = l.c_row, tc.c_col = l.c_col;
  return tc;
}

// PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type": groupID = lane >> 2,
// threadID_in_group = lane & 3. A: row groupID + 8 * (i >> 1 & 1), col tig * 2 + (i & 1) + 8 * (i >> 2);
// B: row tig * 2 + (i & 1) + 8 * (i >> 1), col groupID; C: row groupID + 8 * (i >> 1), col tig * 2 + (i & 1).
TensorCore NvidiaMma(DType input, const char* input_name) {
  return Core(absl::StrCat("mma_m16n8k16_", input_name, "_f32"), 16, 8, 16, 32, input,
              {.a_row = {L(2), L(3), L(4), E(1)}, .a_k = {E(0), L(0), L(1), E(2)},
               .b_k = {E(0), L(0), L(1), E(1)}, .b_col = {L(2), L(3), L(4)},
               .c_row = {L(2), L(3), L(4), E(1)}, .c_col = {E(0), L(0), L(1)}});
}

// AMD CDNA ISA, "MFMA" (v_mfma_f32_16x16x16f16, wave64): A: row lane & 15, k 4 * (lane >> 4) + i;
// B: col lane & 15, k 4 * (lane >> 4) + i; D: row 4 * (lane >> 4) + i, col lane & 15.
TensorCore AmdMfma() {
  return Core("mfma_f32_16x16x16_f16", 16, 16, 16, 64, dtypes::float16,
              {.a_row = {L(0), L(1), L(2), L(3)}, .a_k = {E(0), E(1), L(4), L(5)},
               .b_k = {E(0), E(1), L(4), L(5)}, .b_col = {L(0), L(1), L(2), L(3)},
               .c_row = {E(0), E(1), L(4), L(5)}, .c_col = {L(0), L(1), L(2), L(3)}});
}

// AMD RDNA3 ISA, "WMMA" (v_wmma_f32_16x16x16_f16, wave32): A: row lane & 15, k i (lanes 16-31 hold
// copies); B: col lane & 15, k i; D: row 2 * i + (lane >> 4), col lane & 15.
TensorCore AmdWmma() {
  return Core("wmma_f32_16x16x16_f16_w32", 16, 16, 16, 32, dtypes::float16,
              {.a_row = {L(0), L(1), L(2), L(3)}, .a_k = {E(0), E(1), E(2), E(3)},
               .b_k = {E(0), E(1), E(2), E(3)}, .b_col = {L(0), L(1), L(2), L(3)},
               .c_row = {L(4), E(0), E(1), E(2)}, .c_col = {L(0), L(1), L(2), L(3)}});
}

// "sm_86" -> 86; 0 for anything else.
int SmVersion(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_") return 0;
  return std::atoi(std::string(arch.substr(3)).c_str());
}

}  // namespace

int TensorCore::a_elements() const { return ElementCount(a_row, a_k); }
int TensorCore::b_elements() const { return ElementCount(b_k, b_col); }
int TensorCore::c_elements() const { return ElementCount(c_row, c_col); }

std::string TensorCore::str() const {
  return absl::StrCat(name, " (", m, "x", n, "x", k, ", ", input.name(), " -> ", accumulate.name(), ", ", threads,
                      " lanes)");
}

std::vector<TensorCore> Emulated(std::string_view arch);

std::vector<TensorCore> TensorCoresFor(std::string_view dialect, std::string_view arch) {
  if (dialect == "opencl-c") {
    const char* emulate = std::getenv("TC_EMULATE");
    return emulate == nullptr ? std::vector<TensorCore>{} : Emulated(emulate);
  }
  if (dialect == "cuda-c" && SmVersion(arch) >= 80)
    return {NvidiaMma(dtypes::float16, "f16"), NvidiaMma(dtypes::bfloat16, "bf16")};
  if (dialect == "hip-c" && (arch == "gfx90a" || arch.substr(0, 5) == "gfx94")) return {AmdMfma()};
  if (dialect == "hip-c" && arch.substr(0, 5) == "gfx11") return {AmdWmma()};
  return {};
}

// |arch|'s first instruction with float in, as "emulated_<name>".
std::vector<TensorCore> Emulated(std::string_view arch) {
  std::vector<TensorCore> real = TensorCoresFor(arch.substr(0, 3) == "sm_" ? "cuda-c" : "hip-c", arch);
  if (real.empty()) return {};
  TensorCore tc = real.front();
  tc.name = "emulated_" + tc.name;
  tc.input = dtypes::float32;
  return {tc};
}

const TensorCore* TensorCoreNamed(std::string_view name) {
  static const std::vector<TensorCore>* all = [] {
    auto* v = new std::vector<TensorCore>();
    for (const char* arch : {"sm_80", "gfx90a", "gfx1100"}) {
      for (const TensorCore& tc : TensorCoresFor(std::string_view(arch).substr(0, 3) == "sm_" ? "cuda-c" : "hip-c", arch))
        v->push_back(tc);
      for (const TensorCore& tc : Emulated(arch)) v->push_back(tc);
    }
    return v;
  }();
  for (const TensorCore& tc : *all)
    if (tc.name == name) return &tc;
  return nullptr;
}

std::string TensorCoreSupportSummary() {
  return "cuda-c on sm_80 and later (mma.sync m16n8k16, half or bfloat16 in, float out), hip-c on gfx90a and "
         "gfx94x (MFMA 16x16x16, half in) and on gfx11 (WMMA 16x16x16, half in); opencl-c emulates one with "
         "TC_EMULATE=<arch>";
}

}  // namespace tg::compiler
