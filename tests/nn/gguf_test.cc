// tg::nn GGUF: metadata of every value type, every tensor type against numpy's dequantized values
// (tests/nn/make_gguf.py), version 2 and alignment, lazy reads, quantized matmuls fused into one kernel,
// and a named tg::Error for each kind of malformed file.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "compiler/schedule/schedule.h"
#include "frontend/nn/gguf.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/frontend/scoped_env.h"
#include "tests/nn/file_util.h"

namespace tg::nn {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::tg::testing::Bf16Values;
using ::tg::testing::ReadFile;
using ::tg::testing::TempPath;
using ::tg::testing::WriteFile;

constexpr const char* kTypesFile = "tests/nn/data/gguf_types.gguf";

const nlohmann::json& Reference() {
  static const nlohmann::json j = nlohmann::json::parse(ReadFile("tests/nn/data/gguf_types.json"));
  return j;
}

// float16 bits decoded on the host: devices without float16 (PoCL without cl_khr_fp16) cannot cast them.
std::vector<float> HalfValues(const Tensor& t) {
  std::vector<unsigned char> bytes = t.to_bytes();
  std::vector<float> out;
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
    int bits = bytes[i] | (bytes[i + 1] << 8), exponent = (bits >> 10) & 31, mantissa = bits & 1023;
    double magnitude = exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
    out.push_back(static_cast<float>((bits & 0x8000) ? -magnitude : magnitude));
  }
  return out;
}

// Little-endian GGUF bytes, for the malformed files.
struct Bytes {
  std::string s;
  Bytes& u8(uint8_t v) { return s.push_back(static_cast<char>(v)), *this; }
  Bytes& u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
    return *this;
  }
  Bytes& u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
    return *this;
  }
  Bytes& str(const std::string& v) { return u64(v.size()), s += v, *this; }
  Bytes& raw(const std::string& v) { return s += v, *this; }
};

std::string Header(uint64_t n_tensors, uint64_t n_kv, uint32_t version = 3) {
  return Bytes().raw("GGUF").u32(version).u64(n_tensors).u64(n_kv).s;
}

// One tensor table entry; |dims| in ggml's order (innermost first).
std::string TensorEntry(const std::string& name, std::vector<uint64_t> dims, uint32_t type, uint64_t offset) {
  Bytes b;
  b.str(name).u32(static_cast<uint32_t>(dims.size()));
  for (uint64_t d : dims) b.u64(d);
  return b.u32(type).u64(offset).s;
}

// A whole file: header, |kv| (n_kv entries), |entries| (n_tensors), padding to 32, |data|.
std::string File(uint64_t n_tensors, const std::string& entries, const std::string& data, uint64_t n_kv = 0,
                 const std::string& kv = "") {
  std::string head = Header(n_tensors, n_kv) + kv + entries;
  head.append((32 - head.size() % 32) % 32, '\0');
  return head + data;
}

std::string LoadErrorOf(const std::string& path) {
  try {
    GGUFFile f = gguf_load(path);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

std::string LoadError(const std::string& bytes) {
  std::string path = TempPath("bad.gguf");
  WriteFile(path, bytes);
  return LoadErrorOf(path);
}

// A valid two-tensor file the malformed ones start from: f32 "a" (2 floats) and Q8_0 "q" (one block).
std::string TwoTensors() {
  return File(2, TensorEntry("a", {2}, 0, 0) + TensorEntry("q", {32}, 8, 32), std::string(32 + 34, '\0'));
}

size_t KernelCount(const Tensor& t, std::vector<UOpRef>* buffers = nullptr) {
  size_t kernels = 0;
  for (const compiler::ScheduleItem& item : compiler::CreateSchedule({t.uop()}, {t.device()}).items) {
    if (item.kind != compiler::ScheduleItem::Kind::kKernel) continue;
    ++kernels;
    if (buffers) buffers->insert(buffers->end(), item.buffers.begin(), item.buffers.end());
  }
  return kernels;
}

TEST(Gguf, ReadsMetadataOfEveryValueType) {
  GGUFHeader h = gguf_read(kTypesFile);
  EXPECT_EQ(h.version, 3u);
  EXPECT_EQ(h.alignment, 32u);
  EXPECT_EQ(h.at("general.architecture").as_string(), "llama");
  EXPECT_EQ(h.at("general.name").as_string(), "tiny \u00e9t\u00e9 \U0001F600");
  EXPECT_EQ(h.at("test.u8").as_int(), 200);
  EXPECT_EQ(h.at("test.i8").as_int(), -100);
  EXPECT_EQ(h.at("test.u16").as_int(), 60000);
  EXPECT_EQ(h.at("test.i16").as_int(), -30000);
  EXPECT_EQ(h.at("test.u32").as_int(), 4000000000);
  EXPECT_EQ(h.at("test.i32").as_int(), -2000000000);
  EXPECT_EQ(h.at("test.f32").as_float(), 0.25);
  EXPECT_TRUE(h.at("test.bool").as_bool());
  EXPECT_EQ(std::get<uint64_t>(h.at("test.u64").data), (uint64_t{1} << 63) + 5);
  EXPECT_EQ(h.at("test.i64").as_int(), -(int64_t{1} << 62));
  EXPECT_DOUBLE_EQ(h.at("test.f64").as_float(), 3.141592653589793);
  EXPECT_EQ(h.at("test.u32").type, GGUFValueType::kUint32);
  const std::vector<GGUFValue>& ints = h.at("test.ints").as_array();
  EXPECT_EQ(h.at("test.ints").element_type, GGUFValueType::kInt32);
  ASSERT_EQ(ints.size(), 3u);
  EXPECT_EQ(ints[1].as_int(), -2);
  EXPECT_THAT(h.at("tokenizer.ggml.tokens").as_strings(), ElementsAre("<s>", "</s>", "\u2581the", "\u00e9"));
  const std::vector<GGUFValue>& nested = h.at("test.nested").as_array();
  ASSERT_EQ(nested.size(), 2u);
  EXPECT_EQ(nested[0].as_array()[1].as_int(), 2);
  EXPECT_EQ(nested[1].element_type, GGUFValueType::kUint8);
  EXPECT_TRUE(nested[1].as_array().empty());
  EXPECT_EQ(h.at("test.empty").element_type, GGUFValueType::kFloat32);
  EXPECT_TRUE(h.at("test.empty").as_array().empty());
  EXPECT_EQ(h.at("llama.block_count").as_int(), 2);
}

TEST(Gguf, MetadataAccessorsNameTheTypes) {
  GGUFHeader h = gguf_read(kTypesFile);
  EXPECT_THROW(h.at("no.such.key"), Error);
  try {
    (void)h.at("test.u8").as_string();
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("a UINT8 is not a STRING"));
  }
  EXPECT_THROW((void)h.at("test.u64").as_int(), Error);  // past INT64_MAX
  EXPECT_THROW((void)h.at("test.ints").as_strings(), Error);
  EXPECT_THROW((void)h.at("general.name").as_float(), Error);
}

TEST(Gguf, TensorTableHasShapesTypesAndSizes) {
  GGUFHeader h = gguf_read(kTypesFile);
  ASSERT_EQ(h.tensors.size(), Reference()["tensors"].size());
  for (const GGUFTensorInfo& t : h.tensors) {
    SCOPED_TRACE(t.name);
    const nlohmann::json& ref = Reference()["tensors"][t.name];
    EXPECT_EQ(static_cast<uint32_t>(t.type), ref["type"].get<uint32_t>());
    EXPECT_EQ(t.shape, ref["shape"].get<Shape>());
    EXPECT_EQ(t.offset % 32, 0u);
  }
  EXPECT_EQ(h.tensors[0].name, "f32");
  EXPECT_EQ(h.tensors[0].nbytes, 60u);
}

TEST(Gguf, EveryTensorTypeMatchesNumpysValues) {
  GGUFFile f = gguf_load(kTypesFile);
  for (auto& [name, ref] : Reference()["tensors"].items()) {
    SCOPED_TRACE(name);
    const Tensor& t = f.tensors.at(name);
    EXPECT_EQ(t.shape(), ref["shape"].get<Shape>());
    std::vector<double> want = ref["values"].get<std::vector<double>>();
    std::vector<float> got;
    if (name == "bf16") got = Bf16Values(t);  // the C renderer has no bf16 cast with gcc 12
    else if (name == "f16") got = HalfValues(t);
    else if (name == "i8" || name == "i32") {
      EXPECT_EQ(t.dtype(), name == "i8" ? dtypes::int8 : dtypes::int32);
      for (int64_t v : t.cast(dtypes::int64).to_vector<int64_t>()) got.push_back(static_cast<float>(v));
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], static_cast<float>(want[i]));
      continue;
    } else got = t.float_().to_vector<float>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-6 * std::max(1.0, std::abs(want[i]))) << "element " << i;
  }
  EXPECT_EQ(f.tensors.at("f16").dtype(), dtypes::float16);
  EXPECT_EQ(f.tensors.at("bf16").dtype(), dtypes::bfloat16);
  EXPECT_EQ(f.tensors.at("q4_k").dtype(), dtypes::float32);
}

TEST(Gguf, QuantizedTensorsKeepTheirBlocks) {
  GGUFFile f = gguf_load(kTypesFile);
  EXPECT_EQ(f.blocks.size(), 8u);  // q8_0 q4_0 q4_k q6_k and the four matmul weights
  EXPECT_EQ(f.blocks.count("f32"), 0u);
  const Tensor& b = f.blocks.at("q4_k");
  EXPECT_EQ(b.dtype(), dtypes::uint16);
  EXPECT_EQ(b.shape(), (Shape{2, 72}));
  EXPECT_EQ(f.blocks.at("q8_0").shape(), (Shape{8, 17}));
  EXPECT_EQ(f.blocks.at("q4_0").shape(), (Shape{3, 9}));
  EXPECT_EQ(f.blocks.at("q6_k").shape(), (Shape{2, 105}));
  std::string file = ReadFile(kTypesFile);
  GGUFHeader h = gguf_read(kTypesFile);
  for (const GGUFTensorInfo& t : h.tensors)
    if (t.name == "q4_k" || t.name == "q6_k") {
      std::vector<unsigned char> bytes = f.blocks.at(t.name).to_bytes();
      EXPECT_EQ(std::string(bytes.begin(), bytes.end()), file.substr(t.offset, t.nbytes));
    }
}

TEST(Gguf, ReadsVersion2WithItsAlignment) {
  GGUFFile f = gguf_load("tests/nn/data/gguf_v2.gguf");
  EXPECT_EQ(f.header.version, 2u);
  EXPECT_EQ(f.header.alignment, 64u);
  EXPECT_EQ(f.header.data_start % 64, 0u);
  for (const GGUFTensorInfo& t : f.header.tensors) EXPECT_EQ((t.offset - f.header.data_start) % 64, 0u);
  EXPECT_THAT(f.tensors.at("a").to_vector<float>(), ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_EQ(f.tensors.at("a").shape(), (Shape{2, 3}));
  std::vector<float> b = f.tensors.at("b").to_vector<float>();
  ASSERT_EQ(b.size(), 32u);
  EXPECT_NEAR(b[0], -1.0f, 1e-3);
  EXPECT_NEAR(b[31], 1.0f, 1e-3);
}

// A tensor's bytes are read from the mapping when a realize first needs them, not at load: bytes
// changed in the file after gguf_load show in a tensor read afterwards, but not in one read before.
TEST(Gguf, ReadsOnlyTheTensorsAskedFor) {
  std::string path = TempPath("lazy.gguf");
  WriteFile(path, ReadFile(kTypesFile));
  GGUFFile f = gguf_load(path);
  std::vector<float> q8_before = f.tensors.at("q8_0").to_vector<float>();
  uint64_t f32_at = 0, q8_at = 0;
  for (const GGUFTensorInfo& t : f.header.tensors) {
    if (t.name == "f32") f32_at = t.offset;
    if (t.name == "q8_0") q8_at = t.offset;
  }
  {
    std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
    float seven = 7.0f;
    out.seekp(static_cast<std::streamoff>(f32_at));
    out.write(reinterpret_cast<const char*>(&seven), 4);
    out.seekp(static_cast<std::streamoff>(q8_at + 2));
    out.write("\x05", 1);
  }
  EXPECT_EQ(f.tensors.at("f32").to_vector<float>()[0], 7.0f);
  EXPECT_EQ(f.tensors.at("q8_0").to_vector<float>(), q8_before);
}

// A decode step's x @ dequantized(W).T (one row of x) is one kernel reading W's blocks, and no buffer
// of W's element count exists. With several rows each weight is read once per row, and the
// scheduler's cost rule (compiler/schedule/fusion_rules.h) may store the dequantized weight first;
// the values agree either way.
TEST(Gguf, QuantizedMatmulDequantizesInsideItsKernel) {
  GGUFFile f = gguf_load(kTypesFile);
  for (const char* name : {"w_q8_0", "w_q4_0", "w_q4_k", "w_q6_k"}) {
    SCOPED_TRACE(name);
    const nlohmann::json& m = Reference()["matmuls"][name];
    Tensor x = Tensor::from_vector<float>(m["x"].get<std::vector<float>>(), m["x_shape"].get<Shape>());
    Tensor w = f.tensors.at(name);
    Tensor row = x.shrink({{0, 1}, {0, x.shape()[1]}}).contiguous();
    row.realize();
    Tensor decode = row.matmul(w.transpose());
    std::vector<UOpRef> buffers;
    EXPECT_EQ(KernelCount(decode, &buffers), 1u);
    std::vector<std::pair<std::string, int64_t>> seen;
    for (const UOpRef& b : buffers) seen.emplace_back(b->dtype().name(), b->arg_as<BufferArg>().size);
    int64_t blocks = f.blocks.at(name).numel();
    EXPECT_THAT(seen, ::testing::UnorderedElementsAre(std::pair<std::string, int64_t>("float32", w.shape()[0]),
                                                      std::pair<std::string, int64_t>("uint16", blocks),
                                                      std::pair<std::string, int64_t>("float32", x.shape()[1])));
    std::vector<double> want = m["y"].get<std::vector<double>>();
    std::vector<float> got_row = decode.to_vector<float>();
    int64_t n = w.shape()[0];
    ASSERT_EQ(got_row.size(), static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(got_row[i], want[i], 1e-4 * std::max(1.0, std::abs(want[i])));
    std::vector<float> got = x.matmul(w.transpose()).to_vector<float>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4 * std::max(1.0, std::abs(want[i])));
  }
}

TEST(Gguf, LoadsASplitModelFromItsFirstPart) {
  GGUFFile f = gguf_load("tests/nn/data/gguf_split-00001-of-00002.gguf");
  EXPECT_THAT(f.tensors.at("first").to_vector<float>(), ElementsAre(1, 2));
  EXPECT_THAT(f.tensors.at("second").to_vector<float>(), ElementsAre(3, 4, 5));
  EXPECT_EQ(f.header.tensors.size(), 2u);
  EXPECT_EQ(f.header.at("split.count").as_int(), 2);
  EXPECT_THAT(LoadErrorOf("tests/nn/data/gguf_split-00002-of-00002.gguf"), HasSubstr("is part 2 of a split model; load part 1"));
  std::string renamed = TempPath("renamed.gguf");
  WriteFile(renamed, ReadFile("tests/nn/data/gguf_split-00001-of-00002.gguf"));
  EXPECT_THAT(LoadErrorOf(renamed), HasSubstr("declares split.count 2; its path must end in -00001-of-00002.gguf"));
  std::string lone = TempPath("lone-00001-of-00002.gguf");
  WriteFile(lone, ReadFile("tests/nn/data/gguf_split-00001-of-00002.gguf"));
  EXPECT_THAT(LoadErrorOf(lone), HasSubstr("cannot open"));
}

TEST(Gguf, EmptyTensorsLoad) {
  std::string path = TempPath("empty.gguf");
  WriteFile(path, File(2, TensorEntry("f", {0, 3}, 0, 0) + TensorEntry("q", {32, 0}, 8, 0), ""));
  GGUFFile f = gguf_load(path);
  EXPECT_EQ(f.tensors.at("f").shape(), (Shape{3, 0}));
  EXPECT_EQ(f.tensors.at("q").shape(), (Shape{0, 32}));
  EXPECT_TRUE(f.tensors.at("q").to_vector<float>().empty());
  EXPECT_EQ(f.tensors.at("q").sum().item<float>(), 0.0f);
}

// The float16 scales decode exactly, subnormal, negative, largest and infinite ones included: with the
// device's float16 where it has one, with integer ops where it does not (OpenCL on PoCL).
TEST(Gguf, HalfScalesDecodeExactly) {
  const std::vector<uint16_t> scales = {0x0001, 0x83ff, 0x8400, 0x3c00, 0x7bff, 0x7c00, 0xfc00, 0x0000};
  std::vector<uint16_t> words;
  for (uint16_t d : scales) {
    words.push_back(d);
    words.insert(words.end(), 16, 0x0101);  // 32 quants of 1
  }
  Tensor blocks = Tensor::from_vector<uint16_t>(words, Shape{static_cast<int64_t>(scales.size()), 17});
  std::vector<float> got = ggml_dequantize(blocks, GGMLType::kQ8_0, {static_cast<int64_t>(scales.size()), 32}).to_vector<float>();
  const float want[] = {std::ldexp(1.0f, -24), -std::ldexp(1023.0f, -24), -std::ldexp(1.0f, -14), 1.0f, 65504.0f,
                        INFINITY, -INFINITY, 0.0f};
  for (size_t i = 0; i < scales.size(); ++i) {
    EXPECT_EQ(got[i * 32], want[i]) << "scale bits " << scales[i];
    EXPECT_EQ(got[i * 32 + 31], want[i]) << "scale bits " << scales[i];
  }
}

TEST(Gguf, DequantizeRefusesWhatIsNotQuantizedBlocks) {
  Tensor blocks = Tensor::zeros({2, 17}).cast(dtypes::uint16);
  EXPECT_THROW(ggml_dequantize(blocks, GGMLType::kF32, {64}), Error);
  EXPECT_THROW(ggml_dequantize(blocks, GGMLType::kQ4_0, {64}), Error);  // 18-byte blocks
  EXPECT_THROW(ggml_dequantize(blocks.cast(dtypes::uint8), GGMLType::kQ8_0, {64}), Error);
  EXPECT_THROW(ggml_dequantize(blocks, GGMLType::kQ8_0, {2, 16}), Error);  // 16 is not a multiple of 32
  EXPECT_THAT(ggml_dequantize(blocks, GGMLType::kQ8_0, {64}).to_vector<float>(), ::testing::Each(0.0f));
}

// The Q8_0 planes (int8 quants, float16 scales) give every value ggml_dequantize gives over the
// file's blocks, numpy's reference included; the other types pass through unchanged; bad blocks are
// refused the same way, naming the function.
TEST(Gguf, RepackedQuantsAreTheBlocksValues) {
  GGUFFile f = gguf_load(kTypesFile);
  GGUFHeader h = gguf_read(kTypesFile);
  for (const GGUFTensorInfo& t : h.tensors) {
    if (!f.blocks.count(t.name)) continue;
    SCOPED_TRACE(t.name);
    std::vector<float> want = ggml_dequantize(f.blocks.at(t.name), t.type, t.shape).to_vector<float>();
    std::vector<float> got = ggml_dequantize_repacked(f.blocks.at(t.name), t.type, t.shape).to_vector<float>();
    EXPECT_EQ(got, want);
  }
  std::vector<double> numpy = Reference()["tensors"]["q8_0"]["values"].get<std::vector<double>>();
  std::vector<float> q8 = ggml_dequantize_repacked(f.blocks.at("q8_0"), GGMLType::kQ8_0, {8, 32}).to_vector<float>();
  ASSERT_EQ(q8.size(), numpy.size());
  for (size_t i = 0; i < q8.size(); ++i) EXPECT_NEAR(q8[i], numpy[i], 1e-6 * std::max(1.0, std::abs(numpy[i]))) << i;
  Tensor zeros = Tensor::zeros({2, 17}).cast(dtypes::uint16);
  try {
    ggml_dequantize_repacked(zeros, GGMLType::kQ8_0, {2, 16});
    ADD_FAILURE() << "16 columns were accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("ggml_dequantize_repacked: Q8_0 needs uint16 blocks"));
  }
}

TEST(GgufErrors, BadMagic) {
  EXPECT_THAT(LoadError("GG"), HasSubstr("2 bytes, fewer than the 4-byte magic"));
  EXPECT_THAT(LoadError("GGML" + std::string(20, '\0')), HasSubstr("the magic is 47 47 4d 4c, not \"GGUF\""));
}

TEST(GgufErrors, BadVersion) {
  EXPECT_THAT(LoadError(Header(0, 0, 1)), HasSubstr("the version is 1; supported: 2 and 3"));
  EXPECT_THAT(LoadError(Header(0, 0, 0x03000000)), HasSubstr("the version is 50331648"));  // big-endian
}

TEST(GgufErrors, TruncatedFileNamesTheField) {
  std::string good = TwoTensors();
  ASSERT_EQ(LoadError(good), "");
  EXPECT_THAT(LoadError(good.substr(0, 10)), HasSubstr("the file ends inside the tensor count: it needs 8 bytes at offset 8"));
  EXPECT_THAT(LoadError(good.substr(0, 30)), HasSubstr("the tensor count 2 needs at least 24 bytes each but 6 bytes are left"));
  // Cut inside the first entry's dims (with the counts still plausible for what is left).
  std::string entries = TensorEntry("a", {2}, 0, 0) + TensorEntry("q", {32}, 8, 32);
  EXPECT_THAT(LoadError((Header(1, 0) + entries).substr(0, 24 + 8 + 1 + 4 + 3) + std::string(24, 'x')),
              HasSubstr("tensor \"a\""));
  // Every cut is an error, never a crash: the data of both tensors runs to the end.
  for (size_t n = 0; n < good.size(); ++n) EXPECT_NE(LoadError(good.substr(0, n)), "") << "cut at " << n;
}

TEST(GgufErrors, TensorDataPastTheEnd) {
  std::string file = File(1, TensorEntry("w", {8}, 0, 0), std::string(16, '\0'));  // 8 floats need 32 bytes
  EXPECT_THAT(LoadError(file), HasSubstr("tensor \"w\" needs 32 bytes at data offset 0, past the end of the 16-byte data section"));
  EXPECT_THAT(LoadError(File(1, TensorEntry("w", {8}, 0, 1u << 20), std::string(32, '\0'))),
              HasSubstr("at data offset 1048576, past the end"));
}

TEST(GgufErrors, WrongTensorSizeForItsType) {
  EXPECT_THAT(LoadError(File(1, TensorEntry("q", {48}, 8, 0), std::string(68, '\0'))),
              HasSubstr("tensor \"q\" of type Q8_0 has an innermost dimension (ne[0]) of 48, not a multiple of its blocks of 32"));
  EXPECT_THAT(LoadError(File(1, TensorEntry("k", {128, 2}, 12, 0), std::string(288, '\0'))),
              HasSubstr("Q4_K has an innermost dimension (ne[0]) of 128, not a multiple of its blocks of 256"));
}

TEST(GgufErrors, OverlappingTensors) {
  std::string file = File(2, TensorEntry("a", {16}, 0, 0) + TensorEntry("b", {8}, 0, 32), std::string(64, '\0'));
  EXPECT_THAT(LoadError(file), HasSubstr("tensors \"a\" (64 bytes at data offset 0) and \"b\" (at 32) overlap"));
}

TEST(GgufErrors, UnknownOrUnsupportedType) {
  EXPECT_THAT(LoadError(File(1, TensorEntry("w", {256}, 13, 0), std::string(176, '\0'))),
              HasSubstr("tensor \"w\" has type Q5_K (13); supported: F32 F16 BF16"));
  EXPECT_THAT(LoadError(File(1, TensorEntry("w", {32}, 99, 0), std::string(64, '\0'))),
              HasSubstr("has type unknown (99)"));
}

TEST(GgufErrors, MisalignedTensorOffset) {
  EXPECT_THAT(LoadError(File(1, TensorEntry("w", {2}, 0, 4), std::string(64, '\0'))),
              HasSubstr("tensor \"w\" has data offset 4, not a multiple of the alignment 32"));
}

TEST(GgufErrors, TooManyDimensions) {
  EXPECT_THAT(LoadError(File(1, TensorEntry("w", {1, 1, 1, 1, 1}, 0, 0), std::string(4, '\0'))),
              HasSubstr("tensor \"w\" has 5 dimensions; at most 4"));
}

TEST(GgufErrors, DimensionsPastTheElementLimit) {
  EXPECT_THAT(LoadError(File(1, TensorEntry("w", {1u << 20, 1u << 20}, 0, 0), std::string(4, '\0'))),
              HasSubstr("tensor \"w\" has dimension 1 of 1048576, which takes it past 2147483647 elements"));
}

TEST(GgufErrors, DuplicateTensorName) {
  EXPECT_THAT(LoadError(File(2, TensorEntry("a", {2}, 0, 0) + TensorEntry("a", {2}, 0, 32), std::string(64, '\0'))),
              HasSubstr("tensor \"a\" appears twice"));
}

TEST(GgufErrors, CountsPastTheFile) {
  EXPECT_THAT(LoadError(Header(0, 1000) + std::string(100, '\0')),
              HasSubstr("the metadata count 1000 needs at least 13 bytes each but 100 bytes are left"));
  EXPECT_THAT(LoadError(Header(~0ull, 0)), HasSubstr("the tensor count 18446744073709551615 needs at least 24 bytes"));
}

TEST(GgufErrors, StringLengthPastTheFile) {
  std::string kv = Bytes().u64(1ull << 40).raw("key").s;
  EXPECT_THAT(LoadError(Header(0, 1) + kv + std::string(16, '\0')),
              HasSubstr("metadata key 0 is a string of 1099511627776 bytes at offset 32, past the end of the 51-byte file"));
}

TEST(GgufErrors, ArrayCountPastTheFile) {
  std::string kv = Bytes().str("tokens").u32(9).u32(8).u64(1ull << 50).s;
  EXPECT_THAT(LoadError(Header(0, 1) + kv + std::string(8, '\0')),
              HasSubstr("metadata key \"tokens\" declares 1125899906842624 STRING elements of at least 8 bytes each, but 8 "
                        "bytes are left"));
}

TEST(GgufErrors, UnknownValueType) {
  std::string kv = Bytes().str("k").u32(13).u64(0).s;
  EXPECT_THAT(LoadError(Header(0, 1) + kv), HasSubstr("metadata key \"k\" has value type 13; allowed: 0-12"));
  std::string array = Bytes().str("k").u32(9).u32(77).u64(0).s;
  EXPECT_THAT(LoadError(Header(0, 1) + array), HasSubstr("metadata key \"k\" is an array of value type 77"));
}

TEST(GgufErrors, BoolOtherThanZeroOrOne) {
  std::string kv = Bytes().str("b").u32(7).u8(2).s;
  EXPECT_THAT(LoadError(Header(0, 1) + kv + std::string(12, '\0')), HasSubstr("metadata key \"b\" is a BOOL of byte value 2"));
}

TEST(GgufErrors, ArraysNestedTooDeep) {
  Bytes kv;
  kv.str("deep").u32(9);
  for (int i = 0; i < 12; ++i) kv.u32(9).u64(1);
  kv.u32(0).u64(0);
  EXPECT_THAT(LoadError(Header(0, 1) + kv.s), HasSubstr("nests arrays more than 8 deep"));
}

TEST(GgufErrors, DuplicateMetadataKey) {
  std::string kv = Bytes().str("k").u32(0).u8(1).str("k").u32(0).u8(2).s;
  EXPECT_THAT(LoadError(Header(0, 2) + kv + std::string(8, '\0')), HasSubstr("metadata key \"k\" appears twice"));
}

TEST(GgufErrors, BadAlignment) {
  std::string as_u64 = Bytes().str("general.alignment").u32(10).u64(32).s;
  EXPECT_THAT(LoadError(Header(0, 1) + as_u64), HasSubstr("general.alignment is a UINT64; it must be a UINT32"));
  std::string odd = Bytes().str("general.alignment").u32(4).u32(24).s;
  EXPECT_THAT(LoadError(Header(0, 1) + odd), HasSubstr("general.alignment is 24; it must be a power of two"));
}

TEST(GgufErrors, AlignedDataStartPastTheEnd) {
  std::string head = Header(1, 0) + TensorEntry("a", {0}, 0, 0);  // 0 elements: no bytes, but the data start
  EXPECT_THAT(LoadError(head), HasSubstr("the tensor data starts at offset 64 (aligned to 32), past the end of the 57-byte file"));
}

// What the header declares is checked against the load budget (TG_LOAD_MAX_BYTES) before it exists.
TEST(GgufErrors, DeclaredSizesPastTheLoadBudgetNameTheField) {
  std::string path = TempPath("budget.gguf");
  WriteFile(path, ReadFile(kTypesFile));
  auto error = [&](int budget) {
    tg::testing::ScopedEnv env("TG_LOAD_MAX_BYTES", std::to_string(budget));
    try {
      gguf_load(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  EXPECT_THAT(error(100), HasSubstr("the metadata count (18 entries) is"));
  EXPECT_THAT(error(100), HasSubstr("more than the load budget of 100 bytes (TG_LOAD_MAX_BYTES"));
  EXPECT_THAT(error(1500), HasSubstr("tensor \"w_q8_0\" (its data) is 2176 bytes"));
  EXPECT_THAT(error(4000), HasSubstr("the data of all tensors is"));  // above the largest tensor (3360)
  EXPECT_EQ(error(1 << 20), "loaded");
  // A metadata array is bounded by its own size too.
  std::string kv = Bytes().str("big").u32(9).u32(0).u64(4000).s + std::string(4000, '\0');
  WriteFile(path, Header(0, 1) + kv);
  EXPECT_THAT(error(100000), HasSubstr("metadata key \"big\" (an array of 4000 elements) is"));
}

TEST(GgufErrors, MissingFile) { EXPECT_THROW(gguf_load(TempPath("does_not_exist.gguf")), Error); }

}  // namespace
}  // namespace tg::nn
