#include "compiler/render/gpu_renderers.h"

#include <cmath>

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/tensor_core.h"
#include "ir/error.h"

namespace tg::compiler {
namespace {

// "gidx1" -> ("g", 1). Launch ids are the only SPECIALs codegen makes.
std::pair<char, int> ParseSpecial(const std::string& name) {
  if (name.size() != 5 || (name.rfind("gidx", 0) != 0 && name.rfind("lidx", 0) != 0) || name[4] < '0' ||
      name[4] > '2')
    throw Error("render: unsupported launch id " + name);
  return {name[0], name[4] - '0'};
}

// The prelude of the GPU dialects names the fixed-width types the body uses.
std::string SharedTypeName(DType dtype, const char* i64, const char* u64, const char* half) {
  switch (dtype.scalar()) {
    case ScalarType::kBool: return "bool";
    case ScalarType::kInt8: return "char";
    case ScalarType::kInt16: return "short";
    case ScalarType::kInt32: return "int";
    case ScalarType::kInt64: return i64;
    case ScalarType::kUInt8: return "unsigned char";
    case ScalarType::kUInt16: return "unsigned short";
    case ScalarType::kUInt32: return "unsigned int";
    case ScalarType::kUInt64: return u64;
    case ScalarType::kFloat16: return half;
    case ScalarType::kBFloat16: return "unsigned short";  // storage only (codegen/dtype_decomp)
    case ScalarType::kFloat32: return "float";
    case ScalarType::kFloat64: return "double";
    case ScalarType::kVoid: return "void";
  }
  return "void";
}

}  // namespace

namespace {

const TensorCore& EmulatedCore(const UOpRef& wmma) {
  const std::string& name = wmma->arg_as<std::string>();
  const TensorCore* tc = name.rfind("emulated_", 0) == 0 ? TensorCoreNamed(name) : nullptr;
  if (tc == nullptr) throw Error("render: opencl-c has no matrix instruction " + name + " (it emulates emulated_*)");
  return *tc;
}

// The C expression of a fragment coordinate of element |element| of lane "lane".
std::string CoordinateExpr(const CoordinateBits& bits, int element) {
  int64_t fixed = 0;
  std::string lanes;
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i] >= kElement) fixed += static_cast<int64_t>((element >> (bits[i] - kElement)) & 1) << i;
    else absl::StrAppend(&lanes, "(((lane>>", static_cast<int>(bits[i]), ")&1)<<", i, ")+");
  }
  return absl::StrCat("(", lanes, fixed, ")");
}

// The warp's fragments scattered into its tiles of A and B, a barrier, each lane's C elements
// summed from the tiles as the instruction defines them, a barrier before the tiles are reused.
std::string EmulatedMatrixHelper(const TensorCore& tc) {
  auto lane = [](int e) { return absl::StrCat(".s", absl::Hex(e)); };
  std::string a = absl::StrCat("float", tc.a_elements()), b = absl::StrCat("float", tc.b_elements());
  std::string c = absl::StrCat("float", tc.c_elements());
  std::string out = absl::StrCat(c, " tg_", tc.name, "(", a, " a, ", b, " b, ", c,
                                 " c, __local float* A, __local float* B) {\n"
                                 "  int lane = get_local_id(0);\n"
                                 "  int warp = get_local_id(1) + get_local_size(1) * get_local_id(2);\n"
                                 "  A += warp * ", tc.m * tc.k, "; B += warp * ", tc.k * tc.n, ";\n");
  for (int e = 0; e < tc.a_elements(); ++e)
    absl::StrAppend(&out, "  A[", CoordinateExpr(tc.a_row, e), "*", tc.k, "+", CoordinateExpr(tc.a_k, e), "] = a", lane(e), ";\n");
  for (int e = 0; e < tc.b_elements(); ++e)
    absl::StrAppend(&out, "  B[", CoordinateExpr(tc.b_k, e), "*", tc.n, "+", CoordinateExpr(tc.b_col, e), "] = b", lane(e), ";\n");
  absl::StrAppend(&out, "  barrier(CLK_LOCAL_MEM_FENCE);\n  for (int k = 0; k < ", tc.k, "; k++) {\n");
  for (int e = 0; e < tc.c_elements(); ++e)
    absl::StrAppend(&out, "    c", lane(e), " += A[", CoordinateExpr(tc.c_row, e), "*", tc.k, "+k] * B[k*", tc.n, "+",
                    CoordinateExpr(tc.c_col, e), "];\n");
  return out + "  }\n  barrier(CLK_LOCAL_MEM_FENCE);\n  return c;\n}\n";
}

}  // namespace

std::string OpenClRenderer::Broadcast(DType dtype, const std::string& scalar) const {
  return absl::StrCat("((", TypeName(dtype), ")(", scalar, "))");
}

std::string OpenClRenderer::MatrixCall(const UOpRef& wmma, const std::vector<std::string>& args) const {
  EmulatedCore(wmma);
  return absl::StrCat("tg_", wmma->arg_as<std::string>(), "(", absl::StrJoin(args, ", "), ", tg_tile_a, tg_tile_b)");
}

// One tile of A and one of B per warp of the group; a kernel's instructions run one after another.
std::string OpenClRenderer::KernelScopeArrays(const std::vector<UOpRef>& ops) const {
  int64_t items = 1, a = 0, b = 0, threads = 1;
  for (const UOpRef& u : ops) {
    if (u->op() == Ops::kSpecial && u->arg_as<std::string>().rfind("lidx", 0) == 0) items *= u->src(0)->const_int();
    if (u->op() != Ops::kWmma) continue;
    const TensorCore& tc = EmulatedCore(u);
    a = std::max<int64_t>(a, tc.m * tc.k), b = std::max<int64_t>(b, tc.k * tc.n), threads = tc.threads;
  }
  if (a == 0) return "";
  int64_t warps = items / threads;
  return absl::StrCat("  __local float tg_tile_a[", warps * a, "];\n  __local float tg_tile_b[", warps * b, "];\n");
}

// ---- OpenCL C ----------------------------------------------------------------------------------

std::string OpenClRenderer::TypeName(DType dtype) const {
  if (dtype.count() > 1) return TypeName(dtype.base()) + std::to_string(dtype.count());
  std::string name = SharedTypeName(dtype, "long", "ulong", "half");
  if (name == "unsigned char") return "uchar";
  if (name == "unsigned short") return "ushort";
  if (name == "unsigned int") return "uint";
  return name;
}

std::string OpenClRenderer::Prelude() const {
  return "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
         "float tg_bf16_to_f32(ushort b) { return as_float(((uint)b) << 16); }\n"
         "ushort tg_f32_to_bf16(float f) { uint u = as_uint(f); if ((u & 0x7fffffffu) > 0x7f800000u) "
         "return (ushort)((u >> 16) | 0x40u); u += 0x7fffu + ((u >> 16) & 1u); return (ushort)(u >> 16); }\n";
}

// Half needs its extension, enabled only when used: some drivers warn about it otherwise.
std::string OpenClRenderer::Extensions(const std::vector<UOpRef>& ops) const {
  std::string out;
  std::set<std::string> emulated;
  for (const UOpRef& u : ops) {
    if (u->dtype().base() == dtypes::float16 && out.empty()) out = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";
    if (u->op() == Ops::kWmma) emulated.insert(u->arg_as<std::string>());
  }
  for (const std::string& name : emulated) out += EmulatedMatrixHelper(*TensorCoreNamed(name));  // MatrixCall checked
  return out;
}

std::string OpenClRenderer::KernelPrefix(const std::string& name, const KernelParams& params) const {
  std::vector<std::string> decls;
  for (size_t i = 0; i < params.buffers.size(); ++i) {
    // OpenCL forbids bool in kernel arguments: bool buffers travel as bytes.
    std::string type = params.buffers[i]->dtype().is_bool() ? "uchar" : TypeName(params.buffers[i]->dtype());
    decls.push_back(absl::StrCat("__global ", params.written[i] ? "" : "const ", type, "* restrict data", i));
  }
  for (size_t i = 0; i < params.variables.size(); ++i)
    decls.push_back(absl::StrCat("const int ", KernelParams::VariableName(i)));
  return absl::StrCat("__kernel void ", name, "(", absl::StrJoin(decls, ", "), ") {\n");
}

std::string OpenClRenderer::SpecialExpr(const std::string& special_name) const {
  auto [kind, dim] = ParseSpecial(special_name);
  return absl::StrCat("(int)", kind == 'g' ? "get_group_id(" : "get_local_id(", dim, ")");
}

std::string OpenClRenderer::MathCall(std::string_view fn, DType dtype, const std::string& x) const {
  return absl::StrCat(std::string(fn), "(", x, ")");  // OpenCL's math builtins are overloaded
}

std::string OpenClRenderer::Bitcast(DType, DType to, const std::string& x) const {
  return absl::StrCat("as_", TypeName(to), "(", x, ")");
}

std::string OpenClRenderer::VectorLiteral(DType dtype, const std::vector<std::string>& lanes) const {
  return absl::StrCat("((", TypeName(dtype), ")(", absl::StrJoin(lanes, ","), "))");
}

std::string OpenClRenderer::LaneExpr(const UOpRef& gep, const std::string& vector) const {
  return absl::StrCat("(", vector, ").s", absl::Hex(gep->arg_as<int64_t>()));
}

// Buffers are __global: the cast keeps the address space.
std::string OpenClRenderer::VectorAt(DType dtype, const std::string& buf, const std::string& index) const {
  return absl::StrCat("(*(__global ", TypeName(dtype), "*)(", buf, "+", index, "))");
}

// bool has no defined size in OpenCL C: its partials live as bytes, as bool buffers do.
std::string OpenClRenderer::LocalArray(DType dtype, const std::string& name, int64_t count) const {
  return absl::StrCat("__local ", dtype.is_bool() ? "uchar" : TypeName(dtype), " ", name, "[", count, "];");
}

// ---- CUDA / HIP C++ ----------------------------------------------------------------------------

std::string CudaRenderer::TypeName(DType dtype) const {
  if (dtype.count() > 1) return absl::StrCat("tg_vec<", TypeName(dtype.base()), ", ", dtype.count(), ">");
  return SharedTypeName(dtype, "long long", "unsigned long long", "__half");
}

std::string CudaRenderer::VectorLiteral(DType dtype, const std::vector<std::string>& lanes) const {
  return absl::StrCat(TypeName(dtype), "{{", absl::StrJoin(lanes, ", "), "}}");
}

std::string CudaRenderer::Broadcast(DType dtype, const std::string& scalar) const {
  return VectorLiteral(dtype, std::vector<std::string>(dtype.count(), scalar));
}

std::string CudaRenderer::MatrixCall(const UOpRef& wmma, const std::vector<std::string>& args) const {
  return absl::StrCat("tg_", wmma->arg_as<std::string>(), "(", absl::StrJoin(args, ", "), ")");
}

namespace {

// The fragments of mma.sync travel as 32-bit registers of two 16-bit elements, the lower first.
std::string NvidiaMma(const std::string& name, const std::string& input, const char* ptx_type) {
  return absl::StrCat(
      "__device__ inline tg_vec<float, 4> tg_", name, "(tg_vec<", input, ", 8> a, tg_vec<", input,
      ", 4> b, tg_vec<float, 4> c) {\n"
      "  unsigned int A[4], B[2];\n"
      "  for (int i = 0; i < 4; i++) A[i] = tg_bitcast<unsigned short>(a[2*i]) | "
      "((unsigned int)tg_bitcast<unsigned short>(a[2*i+1]) << 16);\n"
      "  for (int i = 0; i < 2; i++) B[i] = tg_bitcast<unsigned short>(b[2*i]) | "
      "((unsigned int)tg_bitcast<unsigned short>(b[2*i+1]) << 16);\n"
      "  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.", ptx_type, ".", ptx_type,
      ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"\n"
      "      : \"+f\"(c.v[0]), \"+f\"(c.v[1]), \"+f\"(c.v[2]), \"+f\"(c.v[3])\n"
      "      : \"r\"(A[0]), \"r\"(A[1]), \"r\"(A[2]), \"r\"(A[3]), \"r\"(B[0]), \"r\"(B[1]));\n"
      "  return c;\n}\n");
}

// AMD's matrix builtins take clang vectors of _Float16 and float.
std::string AmdMatrix(const std::string& name, int in_lanes, int out_lanes, const std::string& builtin_call) {
  return absl::StrCat(
      "typedef _Float16 tg_h", in_lanes, " __attribute__((ext_vector_type(", in_lanes, ")));\n",
      "typedef float tg_f", out_lanes, " __attribute__((ext_vector_type(", out_lanes, ")));\n",
      "__device__ inline tg_vec<float, ", out_lanes, "> tg_", name, "(tg_vec<__half, ", in_lanes, "> a, tg_vec<__half, ",
      in_lanes, "> b, tg_vec<float, ", out_lanes, "> c) {\n",
      "  tg_h", in_lanes, " A, B; tg_f", out_lanes, " C;\n",
      "  for (int i = 0; i < ", in_lanes, "; i++) { A[i] = tg_bitcast<_Float16>(a[i]); B[i] = tg_bitcast<_Float16>(b[i]); }\n",
      "  for (int i = 0; i < ", out_lanes, "; i++) C[i] = c[i];\n",
      "  C = ", builtin_call, ";\n",
      "  for (int i = 0; i < ", out_lanes, "; i++) c.v[i] = C[i];\n",
      "  return c;\n}\n");
}

std::string MatrixHelper(const std::string& name) {
  if (name == "mma_m16n8k16_f16_f32") return NvidiaMma(name, "__half", "f16");
  if (name == "mma_m16n8k16_bf16_f32") return NvidiaMma(name, "unsigned short", "bf16");
  if (name == "mfma_f32_16x16x16_f16")
    return AmdMatrix(name, 4, 4, "__builtin_amdgcn_mfma_f32_16x16x16f16(A, B, C, 0, 0, 0)");
  if (name == "wmma_f32_16x16x16_f16_w32")
    return AmdMatrix(name, 16, 8, "__builtin_amdgcn_wmma_f32_16x16x16_f16_w32(A, B, C)");
  throw Error("render: no spelling for the matrix instruction " + name);
}

}  // namespace

std::string CudaRenderer::Extensions(const std::vector<UOpRef>& ops) const {
  std::string out;
  bool vectors = false, half = false;
  std::set<std::string> matrix;
  for (const UOpRef& u : ops) {
    vectors = vectors || u->dtype().count() > 1;
    half = half || u->dtype().base() == dtypes::float16;
    if (u->op() == Ops::kWmma) matrix.insert(u->arg_as<std::string>());
  }
  // __half comes from the toolkit's header (the plugin gives NVRTC its include path); hiprtc has it built in.
  if (half && dialect_ == "cuda-c") out += "#include <cuda_fp16.h>\n";
  if (vectors)
    out += "template <class T, int N> struct alignas(sizeof(T) * N) tg_vec { T v[N]; __device__ T& operator[](int i) { return v[i]; } "
           "__device__ const T& operator[](int i) const { return v[i]; } };\n";
  for (const std::string& name : matrix) out += MatrixHelper(name);
  return out;
}

std::string CudaRenderer::Prelude() const {
  return "template <class T, class F> __device__ inline T tg_bitcast(F f) { union { F f; T t; } u; u.f = f; return u.t; }\n"
         "__device__ inline float tg_bf16_to_f32(unsigned short b) { return tg_bitcast<float>(((unsigned int)b) << 16); }\n"
         "__device__ inline unsigned short tg_f32_to_bf16(float f) { unsigned int u = tg_bitcast<unsigned int>(f); "
         "if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u); "
         "u += 0x7fffu + ((u >> 16) & 1u); return (unsigned short)(u >> 16); }\n";
}

std::string CudaRenderer::KernelPrefix(const std::string& name, const KernelParams& params) const {
  std::vector<std::string> decls;
  for (size_t i = 0; i < params.buffers.size(); ++i)
    decls.push_back(absl::StrCat(params.written[i] ? "" : "const ", TypeName(params.buffers[i]->dtype()),
                                 "* __restrict__ data", i));
  for (size_t i = 0; i < params.variables.size(); ++i)
    decls.push_back(absl::StrCat("const int ", KernelParams::VariableName(i)));
  return absl::StrCat("extern \"C\" __global__ void ", name, "(", absl::StrJoin(decls, ", "), ") {\n");
}

std::string CudaRenderer::SpecialExpr(const std::string& special_name) const {
  auto [kind, dim] = ParseSpecial(special_name);
  static const char* kAxes[] = {"x", "y", "z"};
  return absl::StrCat("(int)", kind == 'g' ? "blockIdx." : "threadIdx.", kAxes[dim]);
}

std::string CudaRenderer::SpecialFloat(double v, DType dtype) const {
  bool dbl = dtype == dtypes::float64;
  const char* bits = std::isnan(v) ? (dbl ? "0x7ff8000000000000ull" : "0x7fc00000u")
                     : v > 0      ? (dbl ? "0x7ff0000000000000ull" : "0x7f800000u")
                                  : (dbl ? "0xfff0000000000000ull" : "0xff800000u");
  return absl::StrCat("tg_bitcast<", dbl ? "double" : "float", ">(", bits, ")");
}

std::string CudaRenderer::Bitcast(DType, DType to, const std::string& x) const {
  return absl::StrCat("tg_bitcast<", TypeName(to), ">(", x, ")");
}

std::string CudaRenderer::LocalArray(DType dtype, const std::string& name, int64_t count) const {
  return absl::StrCat("__shared__ ", TypeName(dtype), " ", name, "[", count, "];");
}

}  // namespace tg::compiler
