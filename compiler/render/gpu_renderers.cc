#include "compiler/render/gpu_renderers.h"

#include <cmath>

#include "absl/strings/str_cat.h"
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

// ---- OpenCL C ----------------------------------------------------------------------------------

std::string OpenClRenderer::TypeName(DType dtype) const {
  if (dtype.count() > 1) throw Error("render: the opencl-c renderer does not vectorize yet");
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
  for (const UOpRef& u : ops)
    if (u->dtype().base() == dtypes::float16) return "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";
  return "";
}

std::string OpenClRenderer::KernelPrefix(const std::string& name, const std::vector<UOpRef>& buffers,
                                         const std::vector<bool>& written) const {
  std::string text = absl::StrCat("__kernel void ", name, "(");
  for (size_t i = 0; i < buffers.size(); ++i) {
    // OpenCL forbids bool in kernel arguments: bool buffers travel as bytes.
    std::string type = buffers[i]->dtype().is_bool() ? "uchar" : TypeName(buffers[i]->dtype());
    absl::StrAppend(&text, i ? ", " : "", "__global ", written[i] ? "" : "const ", type, "* restrict data", i);
  }
  return text + ") {\n";
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

// ---- CUDA / HIP C++ ----------------------------------------------------------------------------

std::string CudaRenderer::TypeName(DType dtype) const {
  if (dtype.count() > 1) throw Error("render: the " + dialect_ + " renderer does not vectorize yet");
  return SharedTypeName(dtype, "long long", "unsigned long long", "__half");
}

std::string CudaRenderer::Prelude() const {
  return "template <class T, class F> __device__ inline T tg_bitcast(F f) { union { F f; T t; } u; u.f = f; return u.t; }\n"
         "__device__ inline float tg_bf16_to_f32(unsigned short b) { return tg_bitcast<float>(((unsigned int)b) << 16); }\n"
         "__device__ inline unsigned short tg_f32_to_bf16(float f) { unsigned int u = tg_bitcast<unsigned int>(f); "
         "if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u); "
         "u += 0x7fffu + ((u >> 16) & 1u); return (unsigned short)(u >> 16); }\n";
}

std::string CudaRenderer::KernelPrefix(const std::string& name, const std::vector<UOpRef>& buffers,
                                       const std::vector<bool>& written) const {
  std::string text = absl::StrCat("extern \"C\" __global__ void ", name, "(");
  for (size_t i = 0; i < buffers.size(); ++i)
    absl::StrAppend(&text, i ? ", " : "", written[i] ? "" : "const ", TypeName(buffers[i]->dtype()),
                    "* __restrict__ data", i);
  return text + ") {\n";
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

}  // namespace tg::compiler
