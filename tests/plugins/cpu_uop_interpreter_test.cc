// cpu_uop_interpreter_test.cc: "tg-uops" programs (plugins/abi/tg_uops.h) through the CPU plugin's raw
// ABI table: parsed by program_compile, run by launch on the interpreter, checked bit for bit against
// the same expressions in C++ (the c dialect's semantics).
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "plugins/abi/tg_uops.h"
#include "tests/plugins/plugin_test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;

template <class T>
Bytes AsBytes(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  if (!b.empty()) memcpy(b.data(), v.data(), b.size());
  return b;
}
template <class T>
std::vector<T> From(const Bytes& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!b.empty()) memcpy(v.data(), b.data(), b.size());
  return v;
}

class UopInterpreterTest : public tg::testing::CpuDeviceSuite {
 protected:

  static tg_error* CompileRaw(const std::string& text, tg_program** out) {
    tg_compile_args a{};
    a.struct_size = sizeof a;
    a.device = dev_;
    a.dialect = TG_UOPS_DIALECT;
    a.source = text.data();
    a.source_len = text.size();
    a.entry = "k";
    return api_->program_compile(&a, out);
  }
  // The refusal's message ("" and a test failure if the program compiled).
  static std::string Refusal(const std::string& body) {
    tg_program* p = nullptr;
    std::string msg = tg::testing::ErrorChecker(api_).Err(CompileRaw("tg-uops 1 k\n" + body, &p), TG_CODE_INVALID_ARGUMENT);
    if (p != nullptr) api_->program_destroy(p);
    return msg;
  }

  // Compiles "tg-uops 1 k\n" + |body| and runs it over |buffers| (updated in place) in |groups| groups.
  static void Run(const std::string& body, std::vector<Bytes>* buffers, std::vector<int64_t> scalars = {},
                  uint32_t groups = 1) {
    tg::testing::ErrorChecker check(api_);
    tg_program* prog = nullptr;
    check.Ok(CompileRaw("tg-uops 1 k\n" + body, &prog));
    ASSERT_NE(prog, nullptr) << body;
    std::vector<tg_buffer*> bufs;
    std::vector<tg_arg> args;
    for (Bytes& b : *buffers) {
      tg_buffer* buf = nullptr;
      check.Ok(api_->buffer_alloc(dev_, std::max<size_t>(b.size(), 1), 0, &buf));
      if (!b.empty()) check.Ok(api_->copy_h2d(nullptr, buf, 0, b.data(), b.size(), nullptr));
      bufs.push_back(buf);
      tg_arg arg{};
      arg.kind = TG_ARG_BUFFER;
      arg.buffer = buf;
      args.push_back(arg);
    }
    for (int64_t s : scalars) {
      tg_arg arg{};
      arg.kind = TG_ARG_I32;
      arg.value = s;
      args.push_back(arg);
    }
    tg_launch_args la{};
    la.struct_size = sizeof la;
    la.program = prog;
    la.num_groups[0] = groups, la.num_groups[1] = la.num_groups[2] = 1;
    la.group_size[0] = la.group_size[1] = la.group_size[2] = 1;
    la.args = args.data();
    la.num_args = static_cast<uint32_t>(args.size());
    check.Ok(api_->launch(&la));
    check.Ok(api_->stream_sync(dev_, nullptr));
    for (size_t i = 0; i < bufs.size(); ++i) {
      if (!(*buffers)[i].empty()) check.Ok(api_->copy_d2h(nullptr, (*buffers)[i].data(), bufs[i], 0, (*buffers)[i].size(), nullptr));
      api_->buffer_free(bufs[i]);
    }
    api_->program_destroy(prog);
  }


 public:
  static void RunPublic(const std::string& body, std::vector<Bytes>* buffers, uint32_t groups) {
    Run(body, buffers, {}, groups);
  }
};

TEST_F(UopInterpreterTest, ElementwiseAddOverBlocksAndARemainder) {
  const int n = 1000;  // 15 blocks of 64 lanes and 40 more
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = 0.1f * i, b[i] = 1.0f / (i + 1);
  std::vector<Bytes> bufs{Bytes(n * 4), AsBytes(a), AsBytes(b)};
  Run("DEFINE_GLOBAL f32 0\nDEFINE_GLOBAL f32 1\nDEFINE_GLOBAL f32 2\nCONST i32 1000\nCONST bool 1\n"
      "RANGE i32 - 3\nINDEX f32 - 1 5 4\nLOAD f32 - 6\nINDEX f32 - 2 5 4\nLOAD f32 - 8\nADD f32 - 7 9\n"
      "INDEX f32 - 0 5 4\nSTORE void - 11 10\nEND void - 5\n",
      &bufs);
  std::vector<float> out = From<float>(bufs[0]);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << i;
}

TEST_F(UopInterpreterTest, ReduceInsideAParallelLoop) {
  const int rows = 100, k = 37;  // out[i] = sum_j a[i * 37 + j], the sum in j's order
  std::vector<float> a(rows * k);
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37f * i) * 1000.0f;
  std::vector<Bytes> bufs{Bytes(rows * 4), AsBytes(a)};
  Run("DEFINE_GLOBAL f32 0\nDEFINE_GLOBAL f32 1\nCONST i32 100\nCONST i32 37\nCONST f32 0x0p+0\nCONST bool 1\n"
      "RANGE i32 - 2\n"           // 6: i
      "DEFINE_ACC f32 - 4\n"      // 7
      "RANGE i32 - 3\n"           // 8: j
      "MUL i32 - 6 3\nADD i32 - 9 8\nINDEX f32 - 1 10 5\nLOAD f32 - 11\n"
      "ADD f32 - 7 12\nASSIGN f32 - 7 13\nEND void - 8\n"  // 13, 14, 15
      "REDUCE f32 - 7\nINDEX f32 - 0 6 5\nSTORE void - 17 16\nEND void - 6\n",
      &bufs);
  std::vector<float> out = From<float>(bufs[0]);
  for (int i = 0; i < rows; ++i) {
    float sum = 0;
    for (int j = 0; j < k; ++j) sum += a[i * k + j];
    ASSERT_EQ(out[i], sum) << i;
  }
}

TEST_F(UopInterpreterTest, FullReduceWithoutALaneLoop) {
  const int n = 777;
  std::vector<double> a(n);
  for (int i = 0; i < n; ++i) a[i] = 1.0 / (3 + i) - 0.001 * i;
  std::vector<Bytes> bufs{Bytes(8), AsBytes(a)};
  Run("DEFINE_GLOBAL f64 0\nDEFINE_GLOBAL f64 1\nCONST i32 777\nCONST f64 0x0p+0\nCONST bool 1\nCONST i32 0\n"
      "DEFINE_ACC f64 - 3\nRANGE i32 - 2\nINDEX f64 - 1 7 4\nLOAD f64 - 8\nADD f64 - 6 9\nASSIGN f64 - 6 10\n"
      "END void - 7\nREDUCE f64 - 6\nINDEX f64 - 0 5 4\nSTORE void - 14 13\n",
      &bufs);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += a[i];
  EXPECT_EQ(From<double>(bufs[0])[0], sum);
}

TEST_F(UopInterpreterTest, GatesKeepLanesOffMemory) {
  // out[i] = i < 10 ? a[i] : 0 (a has 10 elements); far[i * 100000] = 7 only where i < 3.
  std::vector<int32_t> a(10);
  for (int i = 0; i < 10; ++i) a[i] = 100 + i;
  std::vector<Bytes> bufs{Bytes(200 * 4, 0xAB), AsBytes(a), Bytes(200001 * 4, 0)};
  Run("DEFINE_GLOBAL i32 0\nDEFINE_GLOBAL i32 1\nDEFINE_GLOBAL i32 2\nCONST i32 200\nCONST i32 10\nCONST bool 1\n"
      "CONST i32 3\nCONST i32 100000\nCONST i32 7\n"
      "RANGE i32 - 3\n"                                 // 9
      "CMPLT bool - 9 4\nINDEX i32 - 1 9 10\nLOAD i32 - 11\nINDEX i32 - 0 9 5\nSTORE void - 13 12\n"
      "CMPLT bool - 9 6\nMUL i32 - 9 7\nINDEX i32 - 2 16 15\nSTORE void - 17 8\nEND void - 9\n",
      &bufs);
  std::vector<int32_t> out = From<int32_t>(bufs[0]), far = From<int32_t>(bufs[2]);
  for (int i = 0; i < 200; ++i) ASSERT_EQ(out[i], i < 10 ? 100 + i : 0) << i;
  for (int i = 0; i <= 200000; ++i) ASSERT_EQ(far[i], i % 100000 == 0 && i / 100000 < 3 ? 7 : 0) << i;
}

TEST_F(UopInterpreterTest, VariablesAndGroupIds) {
  // out[g * 8 + i] = g * 1000 + i * v for i < v (v = scalar 0 = 5), 3 groups; the rest untouched.
  std::vector<Bytes> bufs{Bytes(24 * 4, 0)};
  Run("DEFINE_GLOBAL i32 0\nDEFINE_VAR i32 0\nSPECIAL i32 gidx0\nCONST i32 8\nCONST i32 1000\nCONST bool 1\n"
      "RANGE i32 - 1\nMUL i32 - 2 3\nADD i32 - 7 6\nMUL i32 - 2 4\nMUL i32 - 6 1\nADD i32 - 9 10\n"
      "INDEX i32 - 0 8 5\nSTORE void - 12 11\nEND void - 6\n",
      &bufs, {5}, 3);
  std::vector<int32_t> out = From<int32_t>(bufs[0]);
  for (int g = 0; g < 3; ++g)
    for (int i = 0; i < 8; ++i) ASSERT_EQ(out[g * 8 + i], i < 5 ? g * 1000 + i * 5 : 0) << g << " " << i;
}

TEST_F(UopInterpreterTest, ProgramsHaveNoBinary) {
  tg_program* p = nullptr;
  tg::testing::ErrorChecker check(api_);
  check.Ok(CompileRaw("tg-uops 1 k\nCONST i32 1\n", &p));
  ASSERT_NE(p, nullptr);
  const char* format = nullptr;
  const void* bin = nullptr;
  uint64_t len = 0;
  EXPECT_NE(check.Err(api_->program_binary(p, &format, &bin, &len), TG_CODE_UNIMPLEMENTED).find("no binary"), std::string::npos);
  api_->program_destroy(p);
}

TEST_F(UopInterpreterTest, TheDeviceOffersTgUopsLast) {
  tg_device_props props{};
  props.struct_size = sizeof props;
  tg::testing::ErrorChecker(api_).Ok(api_->device_props(dev_, &props));
  ASSERT_EQ(props.num_source_dialects, 3u);
  EXPECT_STREQ(props.source_dialects[2], TG_UOPS_DIALECT);
}

TEST_F(UopInterpreterTest, RefusesMalformedPrograms) {
  auto has = [](const std::string& msg, const std::string& part) {
    return msg.find(part) != std::string::npos ? ::testing::AssertionSuccess()
                                               : ::testing::AssertionFailure() << "'" << part << "' not in: " << msg;
  };
  tg_program* p = nullptr;
  std::string header = tg::testing::ErrorChecker(api_).Err(CompileRaw("tg-uops 2 k\nCONST i32 1\n", &p), TG_CODE_INVALID_ARGUMENT);
  EXPECT_TRUE(has(header, "version 1"));
  EXPECT_TRUE(has(Refusal("CONST i32 1\nFROB i32 - 0\n"), "operation 1 (text line 3): unknown op 'FROB'"));
  EXPECT_TRUE(has(Refusal("CONST f128 1\n"), "unknown dtype 'f128'; allowed: void bool"));
  EXPECT_TRUE(has(Refusal("CONST f32.4 1\n"), "unknown dtype 'f32.4'"));
  EXPECT_TRUE(has(Refusal("CONST i32 1\nADD i32 - 0 1\n"), "source 1 is not an earlier operation"));
  EXPECT_TRUE(has(Refusal("CONST i32 1\nADD i32 - 0\n"), "ADD takes 2 source(s), got 1"));
  EXPECT_TRUE(has(Refusal("CONST i32 4\nRANGE i32 - 0\nRANGE i32 - 0\nEND void - 1\n"),
                  "END 1 does not close the innermost open RANGE (2)"));
  EXPECT_TRUE(has(Refusal("CONST i32 4\nRANGE i32 - 0\n"), "operation 1: this RANGE is never closed"));
  EXPECT_TRUE(has(Refusal("CONST f32 0x1p+0\nIDIV f32 - 0 0\n"), "IDIV of f32"));
  EXPECT_TRUE(has(Refusal("CONST i32 x\n"), "not a decimal integer"));
  EXPECT_TRUE(has(Refusal("CONST i8 300\n"), "does not fit i8"));
  EXPECT_TRUE(has(Refusal("SPECIAL i32 lidx0\n"), "gidx0, gidx1 or gidx2"));
}


// ---- Every ALU op on every dtype it applies to, bit for bit against C++ (lanes and uniform values).

// A dtype of the dialect: its name, its storage type, and what kind it is.
enum class Kind { kBool, kInt, kHalf, kBf16, kFloat };
template <class S, Kind K>
struct DT {
  using T = S;
  static constexpr Kind kind = K;
};
using Bool = DT<uint8_t, Kind::kBool>;
using Bf16 = DT<uint16_t, Kind::kBf16>;
using Half = DT<_Float16, Kind::kHalf>;
template <class I> using Int = DT<I, Kind::kInt>;
template <class F> using Flt = DT<F, Kind::kFloat>;

template <class D> const char* Name() {
  using T = typename D::T;
  if constexpr (D::kind == Kind::kBool) return "bool";
  else if constexpr (D::kind == Kind::kBf16) return "bf16";
  else if constexpr (D::kind == Kind::kHalf) return "f16";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, int8_t>) return "i8";
  else if constexpr (std::is_same_v<T, int16_t>) return "i16";
  else if constexpr (std::is_same_v<T, int32_t>) return "i32";
  else if constexpr (std::is_same_v<T, int64_t>) return "i64";
  else if constexpr (std::is_same_v<T, uint8_t>) return "u8";
  else if constexpr (std::is_same_v<T, uint16_t>) return "u16";
  else if constexpr (std::is_same_v<T, uint32_t>) return "u32";
  else return "u64";
}

float Bf16ToF32(uint16_t b) {  // the c dialect's prelude
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
uint16_t F32ToBf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

template <class D> std::vector<typename D::T> Values() {
  using T = typename D::T;
  if constexpr (D::kind == Kind::kBool) return {0, 1};
  else if constexpr (D::kind == Kind::kInt) {
    using L = std::numeric_limits<T>;
    std::vector<T> v;
    for (int64_t x : {0, 1, -1, 2, -2, 3, 5, 7, -7, 31, 33, 63, 100, -100})
      v.push_back(static_cast<T>(x));
    for (T x : {L::min(), L::max(), static_cast<T>(L::min() + 1), static_cast<T>(L::max() - 1)}) v.push_back(x);
    return v;
  } else {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<T> v;
    // Halfway cases of f16 (1 + 2^-11) and bf16 (1 + 2^-8 and 1 + 3 * 2^-8), and beyond their ranges.
    for (double x : {0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 3.25, 1e-3, 65504.0, 65520.0, 70000.0, 1e30,
                     -1e30, inf, -inf, std::nan(""), 1e-8, 2147483648.0, -2147483648.0, 3e9, 1.0 + 1.0 / 2048,
                     1.0 + 1.0 / 256, 1.0 + 3.0 / 256, 1e19, -3.7, 255.9, 300.0}) {
      if constexpr (D::kind == Kind::kBf16) v.push_back(F32ToBf16(static_cast<float>(x)));
      else v.push_back(static_cast<T>(x));
    }
    return v;
  }
}

// C's value of a lane in arithmetic: the promoted integer, or the float a half computes in.
template <class D> auto Up(typename D::T x) {
  if constexpr (D::kind == Kind::kBf16) return Bf16ToF32(x);
  else if constexpr (D::kind == Kind::kHalf) return static_cast<float>(x);
  else return +x;
}
template <class D, class V> typename D::T Down(V v) {
  if constexpr (D::kind == Kind::kBool) return v != 0;
  else return static_cast<typename D::T>(v);
}

template <class D> typename D::T RefBinary(const std::string& op, typename D::T a, typename D::T b) {
  auto x = Up<D>(a), y = Up<D>(b);
  using P = decltype(x);
  if constexpr (std::is_integral_v<P>) {
    using U = std::make_unsigned_t<P>;
    constexpr int mask = sizeof(P) * 8 - 1;
    if (op == "ADD") return Down<D>(static_cast<P>(static_cast<U>(x) + static_cast<U>(y)));
    if (op == "MUL") return Down<D>(static_cast<P>(static_cast<U>(x) * static_cast<U>(y)));
    if (op == "IDIV") return y == 0 ? 0 : (std::is_signed_v<P> && y == P(-1)) ? Down<D>(static_cast<P>(U(0) - U(x))) : Down<D>(x / y);
    if (op == "MOD") return y == 0 || (std::is_signed_v<P> && y == P(-1)) ? 0 : Down<D>(x % y);
    if (op == "XOR") return Down<D>(x ^ y);
    if (op == "OR") return Down<D>(x | y);
    if (op == "AND") return Down<D>(x & y);
    if (op == "SHL") return Down<D>(static_cast<P>(static_cast<U>(x) << (static_cast<int>(y) & mask)));
    if (op == "SHR") return Down<D>(x >> (static_cast<int>(y) & mask));
  } else {
    if (op == "ADD") return Down<D>(x + y);
    if (op == "MUL") return Down<D>(x * y);
    if (op == "FDIV") return Down<D>(x / y);
  }
  return Down<D>(x < y ? y : x);  // MAX
}

template <class D> typename D::T RefUnary(const std::string& op, typename D::T a) {
  auto x = Up<D>(a);
  using P = decltype(x);
  if constexpr (std::is_floating_point_v<P>) {
    constexpr bool f64 = std::is_same_v<P, double>;
    if (op == "EXP2") return Down<D>(f64 ? exp2(x) : exp2f(x));
    if (op == "LOG2") return Down<D>(f64 ? log2(x) : log2f(x));
    if (op == "SIN") return Down<D>(f64 ? sin(x) : sinf(x));
    if (op == "SQRT") return Down<D>(f64 ? sqrt(x) : sqrtf(x));
    if (op == "TRUNC") return Down<D>(f64 ? trunc(x) : truncf(x));
    if (op == "RECIPROCAL") return Down<D>(P(1) / x);
    return Down<D>(-x);
  } else if constexpr (D::kind == Kind::kBool) {
    return !x;
  } else {
    return Down<D>(static_cast<P>(std::make_unsigned_t<P>(0) - static_cast<std::make_unsigned_t<P>>(x)));
  }
}

// x86's truncation to I: out of range or NaN gives I's minimum.
template <class I, class F> I Trunc(F v) {
  const F lim = static_cast<F>(std::numeric_limits<std::make_unsigned_t<I>>::max() / 2 + 1);
  return v >= -lim && v < lim ? static_cast<I>(v) : std::numeric_limits<I>::min();
}

template <class From, class To> typename To::T RefCast(typename From::T a) {
  using T = typename To::T;
  auto x = Up<From>(a);
  if constexpr (To::kind == Kind::kBool) return x != 0;
  else if constexpr (To::kind == Kind::kBf16) return F32ToBf16(static_cast<float>(x));
  else if constexpr (To::kind == Kind::kInt && std::is_floating_point_v<decltype(x)>) {
    if constexpr (std::is_same_v<T, int64_t>) return Trunc<int64_t>(x);
    else if constexpr (std::is_same_v<T, uint32_t>) return static_cast<T>(Trunc<int64_t>(x));
    else if constexpr (std::is_same_v<T, uint64_t>) {
      if (x < 9223372036854775808.0) return static_cast<T>(Trunc<int64_t>(x));
      return x < 18446744073709551616.0 ? static_cast<T>(x) : uint64_t{1} << 63;
    } else return static_cast<T>(Trunc<int32_t>(x));
  } else if constexpr (From::kind == Kind::kBf16) return static_cast<T>(x);
  else return static_cast<T>(a);
}

// One op over every pair (or single, or triple) of test values, as a lane loop and as uniform values.
class OpCase {
 public:
  OpCase(std::string op, const char* out, std::vector<std::pair<const char*, Bytes>> inputs, size_t n)
      : op_(std::move(op)), out_(out), inputs_(std::move(inputs)), n_(n) {}
  // Runs the program both ways and returns the two outputs.
  std::vector<Bytes> Run(size_t out_bytes) const {
    std::vector<Bytes> results;
    for (bool lanes : {true, false}) {
      std::string text = std::string("DEFINE_GLOBAL ") + out_ + " 0\n";
      for (size_t i = 0; i < inputs_.size(); ++i) text += "DEFINE_GLOBAL " + std::string(inputs_[i].first) + " " + std::to_string(i + 1) + "\n";
      const size_t c = inputs_.size() + 1, idx = c + 2;
      text += "CONST i32 " + std::to_string(n_) + "\nCONST bool 1\n";
      text += lanes ? "RANGE i32 - " + std::to_string(c) + "\n" : "SPECIAL i32 gidx0\n";
      std::string srcs;
      size_t line = idx + 1;
      for (size_t i = 0; i < inputs_.size(); ++i, line += 2) {
        text += "INDEX " + std::string(inputs_[i].first) + " - " + std::to_string(i + 1) + " " + std::to_string(idx) + " " + std::to_string(c + 1) + "\n";
        text += "LOAD " + std::string(inputs_[i].first) + " - " + std::to_string(line) + "\n";
        srcs += " " + std::to_string(line + 1);
      }
      text += op_ + " " + out_ + " -" + srcs + "\n";
      text += "INDEX " + std::string(out_) + " - 0 " + std::to_string(idx) + " " + std::to_string(c + 1) + "\n";
      text += "STORE void - " + std::to_string(line + 1) + " " + std::to_string(line) + "\n";
      if (lanes) text += "END void - " + std::to_string(idx) + "\n";
      std::vector<Bytes> bufs{Bytes(out_bytes)};
      for (const auto& in : inputs_) bufs.push_back(in.second);
      UopInterpreterTest::RunPublic(text, &bufs, lanes ? 1 : static_cast<uint32_t>(n_));
      results.push_back(bufs[0]);
    }
    return results;
  }

 private:
  std::string op_;
  const char* out_;
  std::vector<std::pair<const char*, Bytes>> inputs_;
  size_t n_;
};

template <class D> bool Same(typename D::T x, typename D::T y) {
  if constexpr (D::kind == Kind::kHalf || D::kind == Kind::kFloat)
    if (std::isnan(static_cast<double>(x)) && std::isnan(static_cast<double>(y))) return true;
  if constexpr (D::kind == Kind::kBf16)
    if (std::isnan(Bf16ToF32(x)) && std::isnan(Bf16ToF32(y))) return true;
  return memcmp(&x, &y, sizeof x) == 0;
}

// Runs |c| both ways and compares with |want| lane by lane.
template <class D> void Expect(const OpCase& c, const std::vector<typename D::T>& want, const std::string& what) {
  for (const Bytes& got_bytes : c.Run(want.size() * sizeof(typename D::T))) {
    std::vector<typename D::T> got = From<typename D::T>(got_bytes);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_TRUE(Same<D>(got[i], want[i])) << what << " lane " << i << ": got " << +Up<D>(got[i]) << " want " << +Up<D>(want[i]);
  }
}

template <class D> void CheckOps(std::initializer_list<const char*> binary, std::initializer_list<const char*> unary,
                                 bool mulacc) {
  using T = typename D::T;
  const std::vector<T> v = Values<D>();
  std::vector<T> a, b, c;
  std::vector<uint8_t> cond;
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t j = 0; j < v.size(); ++j) a.push_back(v[i]), b.push_back(v[j]), c.push_back(v[(i + j) % v.size()]), cond.push_back((i ^ j) & 1);
  const char* t = Name<D>();
  const std::string type = t;
  for (const char* op : binary) {
    std::vector<T> want;
    for (size_t i = 0; i < a.size(); ++i) want.push_back(RefBinary<D>(op, a[i], b[i]));
    Expect<D>(OpCase(op, t, {{t, AsBytes(a)}, {t, AsBytes(b)}}, a.size()), want, std::string(op) + " " + type);
  }
  for (const char* op : {"CMPLT", "CMPNE", "CMPEQ"}) {
    if (D::kind == Kind::kBf16) break;  // storage only: the parser refuses comparisons
    std::vector<uint8_t> want;
    for (size_t i = 0; i < a.size(); ++i) {
      auto x = Up<D>(a[i]), y = Up<D>(b[i]);
      want.push_back(op[3] == 'L' ? x < y : op[3] == 'N' ? x != y : x == y);
    }
    Expect<Bool>(OpCase(op, "bool", {{t, AsBytes(a)}, {t, AsBytes(b)}}, a.size()), want, std::string(op) + " " + type);
  }
  for (const char* op : unary) {
    std::vector<T> want;
    for (size_t i = 0; i < a.size(); ++i) want.push_back(RefUnary<D>(op, a[i]));
    Expect<D>(OpCase(op, t, {{t, AsBytes(a)}}, a.size()), want, std::string(op) + " " + type);
  }
  std::vector<T> picked;
  for (size_t i = 0; i < a.size(); ++i) picked.push_back(cond[i] ? a[i] : b[i]);
  Expect<D>(OpCase("WHERE", t, {{"bool", AsBytes(cond)}, {t, AsBytes(a)}, {t, AsBytes(b)}}, a.size()), picked, "WHERE " + type);
  if (!mulacc) return;
  std::vector<T> want;
  for (size_t i = 0; i < a.size(); ++i) want.push_back(RefBinary<D>("ADD", RefBinary<D>("MUL", a[i], b[i]), c[i]));
  Expect<D>(OpCase("MULACC", t, {{t, AsBytes(a)}, {t, AsBytes(b)}, {t, AsBytes(c)}}, a.size()), want, "MULACC " + type);
}

template <class D> void CheckInt() {
  CheckOps<D>({"ADD", "MUL", "MAX", "IDIV", "MOD", "XOR", "OR", "AND", "SHL", "SHR"}, {"NEG"}, true);
}
template <class D> void CheckFloat() {
  CheckOps<D>({"ADD", "MUL", "MAX", "FDIV"}, {"NEG", "EXP2", "LOG2", "SIN", "SQRT", "RECIPROCAL", "TRUNC"}, true);
}

TEST_F(UopInterpreterTest, EveryAluOpOnEveryDtype) {
  CheckOps<Bool>({"ADD", "MUL", "MAX", "XOR", "OR", "AND"}, {"NEG"}, false);
  CheckInt<Int<int8_t>>(), CheckInt<Int<int16_t>>(), CheckInt<Int<int32_t>>(), CheckInt<Int<int64_t>>();
  CheckInt<Int<uint8_t>>(), CheckInt<Int<uint16_t>>(), CheckInt<Int<uint32_t>>(), CheckInt<Int<uint64_t>>();
  CheckFloat<Half>(), CheckFloat<Flt<float>>(), CheckFloat<Flt<double>>();
  CheckOps<Bf16>({}, {}, false);  // storage only: comparisons would be refused, WHERE selects bits
}

TEST_F(UopInterpreterTest, IdivAndModTruncateTowardZero) {
  std::vector<int32_t> a{7, -7, 7, -7, INT32_MIN, 5}, b{2, 2, -2, -2, -1, 0};
  const std::vector<int32_t> quotient{3, -3, -3, 3, INT32_MIN, 0}, remainder{1, -1, 1, -1, 0, 0};
  Expect<Int<int32_t>>(OpCase("IDIV", "i32", {{"i32", AsBytes(a)}, {"i32", AsBytes(b)}}, 6), quotient, "IDIV");
  Expect<Int<int32_t>>(OpCase("MOD", "i32", {{"i32", AsBytes(a)}, {"i32", AsBytes(b)}}, 6), remainder, "MOD");
}

template <class From, class To> void CheckCast() {
  std::vector<typename From::T> v = Values<From>();
  std::vector<typename To::T> want;
  for (auto x : v) want.push_back(RefCast<From, To>(x));
  Expect<To>(OpCase("CAST", Name<To>(), {{Name<From>(), AsBytes(v)}}, v.size()), want,
             std::string("CAST ") + Name<From>() + " -> " + Name<To>());
  if constexpr (sizeof(typename From::T) == sizeof(typename To::T) && From::kind != Kind::kBool && To::kind != Kind::kBool) {
    std::vector<typename To::T> bits(v.size());
    memcpy(bits.data(), v.data(), v.size() * sizeof(v[0]));
    Expect<To>(OpCase("BITCAST", Name<To>(), {{Name<From>(), AsBytes(v)}}, v.size()), bits,
               std::string("BITCAST ") + Name<From>() + " -> " + Name<To>());
  }
}

template <class From, class... To> void CheckCastsFrom() { (CheckCast<From, To>(), ...); }
template <class... D> void CheckAllCasts() { (CheckCastsFrom<D, D...>(), ...); }

TEST_F(UopInterpreterTest, EveryCastAndBitcast) {
  CheckAllCasts<Bool, Int<int8_t>, Int<int16_t>, Int<int32_t>, Int<int64_t>, Int<uint8_t>, Int<uint16_t>,
                Int<uint32_t>, Int<uint64_t>, Half, Bf16, Flt<float>, Flt<double>>();
}

TEST_F(UopInterpreterTest, HalfAndBfloat16RoundToNearestEven) {
  // 1 + 2^-11 is halfway between two halves: to even (1.0); 1 + 3 * 2^-11 rounds up to 1 + 2^-9.
  std::vector<float> x{1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 65520.0f, std::nanf("")};
  std::vector<_Float16> h = From<_Float16>(OpCase("CAST", "f16", {{"f32", AsBytes(x)}}, 4).Run(8)[0]);
  EXPECT_EQ(static_cast<float>(h[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(h[1]), 1.0f + 1.0f / 512);
  EXPECT_TRUE(std::isinf(static_cast<float>(h[2])));
  EXPECT_TRUE(std::isnan(static_cast<float>(h[3])));
  // bfloat16 keeps 8 bits of mantissa: 1 + 2^-8 ties to 1.0, 1 + 3 * 2^-8 to 1 + 2^-6; a NaN stays one.
  std::vector<float> y{1.0f + 1.0f / 256, 1.0f + 3.0f / 256, std::nanf(""), -INFINITY};
  std::vector<uint16_t> b = From<uint16_t>(OpCase("CAST", "bf16", {{"f32", AsBytes(y)}}, 4).Run(8)[0]);
  EXPECT_EQ(b[0], 0x3f80);
  EXPECT_EQ(b[1], 0x3f82);
  EXPECT_TRUE(std::isnan(Bf16ToF32(b[2])));
  EXPECT_EQ(b[3], 0xff80);
}
}  // namespace
