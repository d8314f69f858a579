// tg::nn safetensors: round trips of every dtype, metadata, a file written by Python, lazy reads, and a
// named tg::Error for each kind of malformed file.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "frontend/nn/nn.h"
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

// A file of |header| (JSON text) and |data|, with the length prefix.
std::string Safetensors(const std::string& header, const std::string& data = "") {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(static_cast<uint64_t>(header.size()) >> (8 * i));
  return out + header + data;
}

// bfloat16 tensors built through their bits, as Bf16Values reads them (tests/nn/file_util.h says why).
Tensor Bf16(const std::vector<float>& values) {
  std::vector<uint16_t> bits;
  for (float v : values) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    bits.push_back(static_cast<uint16_t>(u >> 16));
  }
  return Tensor::from_loader({static_cast<int64_t>(bits.size())}, dtypes::bfloat16,
                             [bits](void* dst, size_t n) { std::memcpy(dst, bits.data(), n); });
}

std::string LoadError(const std::string& bytes) {
  std::string path = TempPath("bad.safetensors");
  WriteFile(path, bytes);
  try {
    StateDict sd = safe_load(path);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(Safetensors, RoundTripsEveryDtype) {
  StateDict sd = {
      {"bool", Tensor::from_vector<bool>({true, false, true})},
      {"u8", Tensor::from_vector<uint8_t>({0, 200, 255})},
      {"i8", Tensor::from_vector<int8_t>({-128, 0, 127})},
      {"u16", Tensor::from_vector<uint16_t>({1, 65535})},
      {"i16", Tensor::from_vector<int16_t>({-32768, 5})},
      {"u32", Tensor::from_vector<uint32_t>({4000000000u})},
      {"i32", Tensor::from_vector<int32_t>({-7, 7}, Shape{2, 1})},
      {"u64", Tensor::from_vector<uint64_t>({~0ull})},
      {"i64", Tensor::from_vector<int64_t>({-(1ll << 60)})},
      {"f16", Tensor::from_vector<float>({1.5f, -0.25f}).half()},
      {"bf16", Bf16({2.0f, -8.0f})},
      {"f32", Tensor::from_vector<float>({0.1f, 0.2f, 0.3f, 0.4f}, Shape{2, 2})},
      {"f64", Tensor::from_vector<double>({3.141592653589793}, Shape{})},
      {"empty", Tensor::zeros({0, 3})},
  };
  std::string path = TempPath("all.safetensors");
  safe_save(sd, path, {{"author", "test"}, {"step", "7"}});
  StateDict back = safe_load(path);
  ASSERT_EQ(back.size(), sd.size());
  for (auto& [name, t] : sd) {
    SCOPED_TRACE(name);
    const Tensor& b = back.at(name);
    EXPECT_EQ(b.shape(), t.shape());
    EXPECT_EQ(b.dtype(), t.dtype());
    EXPECT_EQ(b.to_bytes(), t.to_bytes());
  }
  EXPECT_THAT(back.at("f16").float_().to_vector<float>(), ElementsAre(1.5f, -0.25f));
  EXPECT_THAT(Bf16Values(back.at("bf16")), ElementsAre(2.0f, -8.0f));
  auto meta = safe_load_metadata(path);
  EXPECT_EQ(meta, (std::map<std::string, std::string>{{"author", "test"}, {"step", "7"}}));
}

TEST(Safetensors, ReadsAFileWrittenByPython) {
  std::string path = "tests/nn/data/interop.safetensors";
  StateDict sd = safe_load(path);
  EXPECT_EQ(sd.size(), 8u);
  EXPECT_EQ(sd.at("weight").shape(), (Shape{2, 3}));
  EXPECT_THAT(sd.at("weight").to_vector<float>(), ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_THAT(sd.at("big").to_vector<int64_t>(), ElementsAre(-1, 1ll << 40));
  EXPECT_THAT(sd.at("half").float_().to_vector<float>(), ElementsAre(1.5f, -2.0f));
  EXPECT_THAT(Bf16Values(sd.at("brain")), ElementsAre(1.0f, -3.0f));
  EXPECT_THAT(sd.at("mask").to_vector<bool>(), ElementsAre(true, false, true));
  EXPECT_THAT(sd.at("pixels").to_vector<uint8_t>(), ElementsAre(255, 7));
  EXPECT_EQ(sd.at("pi").shape(), Shape{});
  EXPECT_DOUBLE_EQ(sd.at("pi").item<double>(), 3.141592653589793);
  EXPECT_EQ(sd.at("empty").shape(), (Shape{0, 4}));
  EXPECT_EQ(safe_load_metadata(path).at("format"), "pt");
}

TEST(Safetensors, SavesAModelAndLoadsItBack) {
  Sequential a{Linear(3, 4), &Tensor::relu, Linear(4, 2)}, b{Linear(3, 4), &Tensor::relu, Linear(4, 2)};
  std::string path = TempPath("model.safetensors");
  safe_save(get_state_dict(a), path);
  load_state_dict(b, safe_load(path));
  Tensor x = Tensor::randn({5, 3});
  EXPECT_EQ(a(x).to_vector<float>(), b(x).to_vector<float>());
}

TEST(Safetensors, ReadsBytesOnlyWhenRealized) {
  int reads = 0;
  Tensor t = Tensor::from_loader({2}, dtypes::float32, [&](void* dst, size_t n) {
    ++reads;
    float v[2] = {4, 5};
    std::memcpy(dst, v, n);
  });
  Tensor doubled = t * 2;
  EXPECT_EQ(reads, 0);
  EXPECT_THAT(doubled.to_vector<float>(), ElementsAre(8, 10));
  EXPECT_THAT(t.to_vector<float>(), ElementsAre(4, 5));
  EXPECT_EQ(reads, 1);
  // safe_load keeps its own mapping: the file may go away before the tensors are read.
  std::string path = TempPath("gone.safetensors");
  safe_save({{"x", Tensor::from_vector<float>({1, 2, 3})}}, path);
  StateDict sd = safe_load(path);
  std::remove(path.c_str());
  EXPECT_THAT(sd.at("x").to_vector<float>(), ElementsAre(1, 2, 3));
}

// A zero-element tensor has no bytes to read and no device memory: it loads, reads empty and saves
// back, also after an earlier load's tensors were dropped unread (their loads are still registered).
TEST(Safetensors, ZeroElementTensorsLoadReadAndSave) {
  std::string empty = TempPath("empty.safetensors"), full = TempPath("full.safetensors");
  WriteFile(empty, Safetensors(R"({"e":{"dtype":"F32","shape":[0,3],"data_offsets":[0,0]}})"));
  WriteFile(full, Safetensors(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                              std::string("\0\0\x80\x3f\0\0\0\x40", 8)));
  for (int i = 0; i < 16; ++i) {
    { StateDict dropped = safe_load(full); }
    StateDict sd = safe_load(empty);
    EXPECT_EQ(sd.at("e").shape(), (Shape{0, 3}));
    EXPECT_TRUE(sd.at("e").to_vector<float>().empty());
    EXPECT_THAT(safe_load(full).at("x").to_vector<float>(), ElementsAre(1, 2));
  }
  std::string saved = TempPath("empty_saved.safetensors");
  safe_save({{"e", safe_load(empty).at("e")}, {"z", Tensor::zeros({4, 0})}}, saved);
  StateDict back = safe_load(saved);
  EXPECT_EQ(back.at("e").shape(), (Shape{0, 3}));
  EXPECT_EQ(back.at("z").shape(), (Shape{4, 0}));
  EXPECT_TRUE(back.at("z").to_bytes().empty());
}

TEST(Safetensors, MalformedFilesAreNamedErrors) {
  const std::string f32 = R"("dtype":"F32","shape":[2],"data_offsets":)";
  EXPECT_THAT(LoadError("abc"), HasSubstr("fewer than the 8-byte"));
  EXPECT_THAT(LoadError(Safetensors("{}").substr(0, 9)), HasSubstr("past the end"));
  EXPECT_THAT(LoadError(Safetensors("{\"a\":")), HasSubstr("not valid JSON"));
  EXPECT_THAT(LoadError(Safetensors("[1, 2]")), HasSubstr("not a JSON object"));
  EXPECT_THAT(LoadError(Safetensors(R"({"a":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}})", "x")),
              HasSubstr("allowed: BOOL"));
  EXPECT_THAT(LoadError(Safetensors("{\"a\":{" + f32 + "[0,4]}}", std::string(8, 0))), HasSubstr("need 8"));
  EXPECT_THAT(LoadError(Safetensors("{\"a\":{" + f32 + "[4,12]}}", std::string(8, 0))), HasSubstr("outside"));
  EXPECT_THAT(LoadError(Safetensors("{\"a\":{" + f32 + "[0,8]},\"b\":{" + f32 + "[4,12]}}", std::string(12, 0))),
              HasSubstr("overlap"));
  EXPECT_THAT(LoadError(Safetensors(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})")),
              HasSubstr("integers >= 0"));
  EXPECT_THAT(LoadError(Safetensors(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})")),
              HasSubstr("dimensions"));
  EXPECT_THAT(LoadError(Safetensors(R"({"a":[1]})")), HasSubstr("not an object"));
  EXPECT_THAT(LoadError(Safetensors(R"({"__metadata__":{"k":1}})")), HasSubstr("not a string"));
  EXPECT_THAT(LoadError(Safetensors(std::string(100, '[') + std::string(100, ']'))), HasSubstr("not valid JSON"));
  EXPECT_EQ(LoadError(Safetensors(R"({"__metadata__":{"k":"v"}})")), "");  // no tensors is fine
  EXPECT_THROW(safe_load(TempPath("does_not_exist.safetensors")), Error);
  EXPECT_THROW(safe_save({{"x", Tensor::zeros({1})}}, "/nonexistent_dir/x.safetensors"), Error);
}

// What the header declares is checked against the load budget (TG_LOAD_MAX_BYTES) before any tensor
// exists: the header length, each entry's bytes and all entries together.
TEST(Safetensors, DeclaredSizesPastTheLoadBudgetAreRefusedByField) {
  std::string path = TempPath("budget.safetensors");
  std::string header = R"({"a":{"dtype":"F32","shape":[64],"data_offsets":[0,256]},)"
                       R"("b":{"dtype":"F32","shape":[16],"data_offsets":[256,320]}})";
  ASSERT_LT(header.size(), 200u);
  WriteFile(path, Safetensors(header, std::string(320, '\0')));
  auto error = [&](int budget) {
    tg::testing::ScopedEnv env("TG_LOAD_MAX_BYTES", std::to_string(budget));
    try {
      safe_load(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  EXPECT_THAT(error(16), HasSubstr("the header length is " + std::to_string(header.size()) +
                                   " bytes, more than the load budget of 16 bytes"));
  EXPECT_THAT(error(200), HasSubstr("budget.safetensors: entry \"a\" (data_offsets) is 256 bytes, more than the "
                                    "load budget of 200 bytes"));
  EXPECT_THAT(error(300), HasSubstr("the data of all entries is 320 bytes, more than the load budget of 300"));
  EXPECT_EQ(error(320), "loaded");
}

}  // namespace
}  // namespace tg::nn
