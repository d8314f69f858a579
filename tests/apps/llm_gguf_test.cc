// apps/llm_gguf: the GGUF models of tests/apps/make_llm_gguf_reference.py (F32, F16, Q8_0, Q4_0, Q4_K, llama
// with the converter's Q/K permutation and qwen2) give PyTorch's logits over each file's own dequantized
// weights and the same greedy continuation through the KV cache; quantized weights stay blocks on the
// device; and each bad file is refused naming what is wrong. Run on every device (tests/device_test.bzl).
//
// Tolerance 1e-4, as for the safetensors models (llm_model_test): the reference runs on exactly the
// values the file's bytes decode to (float16 widened, blocks dequantized by ggml's formulas), so the two
// sides differ only in float32 rounding and summation order, not by the quantization error.
#include "apps/llm_gguf.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "apps/llm_model.h"
#include "frontend/nn/quant.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tg::apps {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const std::string kData = "tests/apps/data/llm_gguf/";

const nlohmann::json& Reference() {
  static const nlohmann::json* ref = [] {
    std::ifstream in(kData + "reference.json");
    std::ostringstream s;
    s << in.rdbuf();
    return new nlohmann::json(nlohmann::json::parse(s.str()));
  }();
  return *ref;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4) << what << " logit " << i;
}

int Argmax(const std::vector<float>& v) { return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin()); }

std::unique_ptr<LlmModel> Load(const std::string& name) {
  LlmGguf gguf = LoadLlmGguf(kData + name + ".gguf");
  return std::make_unique<LlmModel>(gguf.config, std::move(gguf.weights));
}

class LlmGgufTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LlmGgufTest, PromptLogitsMatchPyTorchOnTheFilesWeights) {
  const nlohmann::json& ref = Reference()[GetParam()];
  std::vector<int32_t> ids = ref["ids"].get<std::vector<int32_t>>();
  std::unique_ptr<LlmModel> model = Load(GetParam());
  const int64_t t = static_cast<int64_t>(ids.size()), first = ref["first_position"].get<int64_t>();
  std::vector<float> all = model->Forward(Tensor::from_vector(ids, Shape{1, t})).to_vector<float>();
  std::vector<float> got(all.begin() + first * model->vocab(), all.end());
  ExpectNear(got, ref["logits"].get<std::vector<float>>(), GetParam());
}

// The prompt through the cache, then greedy steps replayed under the decode JIT.
TEST_P(LlmGgufTest, CachedGreedyContinuationMatchesPyTorch) {
  const nlohmann::json& ref = Reference()[GetParam()];
  std::vector<int> ids = ref["ids"].get<std::vector<int>>(), want = ref["greedy"].get<std::vector<int>>();
  std::vector<float> last = ref["logits"].get<std::vector<float>>();
  std::unique_ptr<LlmModel> model = Load(GetParam());
  const size_t vocab = static_cast<size_t>(model->vocab());
  std::vector<float> logits = model->Prefill(ids);
  ExpectNear(logits, std::vector<float>(last.end() - static_cast<std::ptrdiff_t>(vocab), last.end()), "prefill");
  std::vector<int> got;
  while (got.size() < want.size()) {
    got.push_back(Argmax(logits));
    logits = model->Step(got.back());
  }
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(Files, LlmGgufTest,
                         ::testing::Values("llama_f16", "llama_q8_0", "llama_q4_0", "llama_q4_k", "qwen2_f32",
                                           "qwen2_q8_0", "qwen2_q4_0", "qwen2_q4_k"));

// A model split in two parts, as llama.cpp's gguf-split writes it, loads from its first part: the same
// logits as the single file holding the same tensors.
TEST(LlmGguf, SplitModelLoadsFromItsFirstPart) {
  const nlohmann::json& ref = Reference()["qwen2_q8_0"];
  std::vector<int32_t> ids = ref["ids"].get<std::vector<int32_t>>();
  LlmGguf gguf = LoadLlmGguf(kData + "qwen2_q8_0_split-00001-of-00002.gguf");
  EXPECT_EQ(gguf.header.tensors.size(), LoadLlmGguf(kData + "qwen2_q8_0.gguf").header.tensors.size());
  LlmModel model(gguf.config, std::move(gguf.weights));
  const int64_t t = static_cast<int64_t>(ids.size()), first = ref["first_position"].get<int64_t>();
  std::vector<float> all = model.Forward(Tensor::from_vector(ids, Shape{1, t})).to_vector<float>();
  std::vector<float> got(all.begin() + first * model.vocab(), all.end());
  ExpectNear(got, ref["logits"].get<std::vector<float>>(), "qwen2_q8_0 split");
}

// What the device holds of |header|'s tensors once a model is built: Q4_0's and Q4_K's blocks (uint16
// words), Q8_0's int8 quants and float16 scales, which its blocks are split into at load (34 bytes a
// block become 32 + 2; float32 scales, 32 + 4, on a device without float16), and the unquantized norms
// and biases as float32. rope_freqs.weight is not a weight: it becomes the config's rope scaling.
std::map<std::string, int64_t> DeviceBytes(const nn::GGUFHeader& header) {
  const bool halves = device_supports(default_device(), dtypes::float16);
  std::map<std::string, int64_t> bytes;
  for (const nn::GGUFTensorInfo& t : header.tensors) {
    if (t.name == "rope_freqs.weight") continue;
    const int64_t n = static_cast<int64_t>(t.nbytes);
    if (t.type == nn::GGMLType::kQ8_0) {
      bytes["int8"] += n / 34 * 32;
      bytes[halves ? "float16" : "float32"] += n / 34 * (halves ? 2 : 4);
    } else {
      bytes[nn::ggml_layout(static_cast<uint32_t>(t.type))->quantized ? "uint16" : "float32"] += n;
    }
  }
  return bytes;
}

// Quantized weights stay quantized on the device, before and after a prompt and a decode step: nothing of
// the size of a float32 matrix.
TEST(LlmGguf, QuantizedWeightsStayQuantizedOnTheDevice) {
  for (const std::string name : {"llama_q8_0", "qwen2_q4_0", "llama_q4_k"}) {
    LlmGguf gguf = LoadLlmGguf(kData + name + ".gguf");
    const std::map<std::string, int64_t> want = DeviceBytes(gguf.header);
    ASSERT_GT(want.count("uint16") + want.count("int8"), 0u) << name;
    LlmModel model(gguf.config, std::move(gguf.weights));
    EXPECT_EQ(model.weight_bytes(), want) << name;
    model.Prefill({1, 2, 3});
    model.Step(4);
    EXPECT_EQ(model.weight_bytes(), want) << name << " after running";
  }
}

// A layer's Q, K and V quantized in one type are one weight of their rows over one buffer of blocks;
// unquantized ones keep their names (LlmModel joins them).
TEST(LlmGguf, QkvOfOneQuantizedTypeIsOneWeight) {
  LlmGguf q8_0 = LoadLlmGguf(kData + "llama_q8_0.gguf");
  const LlmConfig& c = q8_0.config;
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string layer = "model.layers." + std::to_string(i) + ".self_attn.";
    ASSERT_TRUE(q8_0.weights.count(layer + "qkv_proj.weight")) << layer;
    EXPECT_EQ(q8_0.weights.at(layer + "qkv_proj.weight").shape(),
              (Shape{(c.heads + 2 * c.kv_heads) * c.head_dim, c.hidden_size}));
    for (const char* part : {"q_proj.weight", "k_proj.weight", "v_proj.weight"})
      EXPECT_FALSE(q8_0.weights.count(layer + part)) << layer << part;
  }
  LlmGguf f32 = LoadLlmGguf(kData + "qwen2_f32.gguf");
  EXPECT_FALSE(f32.weights.count("model.layers.0.self_attn.qkv_proj.weight"));
  EXPECT_TRUE(f32.weights.count("model.layers.0.self_attn.q_proj.weight"));
}

// A layer's gate and up quantized in one type are one weight of their rows in turn (gate's row i, then
// up's row i), over one buffer of blocks: the same values as the file's two tensors, row for row.
// Unquantized ones keep their names (LlmModel joins them).
TEST(LlmGguf, GateAndUpOfOneQuantizedTypeAreOneWeightOfTheirRowsInTurn) {
  for (const std::string name : {"llama_q8_0", "llama_q4_k"}) {
    LlmGguf gguf = LoadLlmGguf(kData + name + ".gguf");
    nn::GGUFFile file = nn::gguf_load(kData + name + ".gguf");
    const int64_t f = gguf.config.intermediate_size, d = gguf.config.hidden_size;
    for (int64_t i = 0; i < gguf.config.layers; ++i) {
      const std::string layer = "model.layers." + std::to_string(i) + ".mlp.", blk = "blk." + std::to_string(i) + ".";
      ASSERT_TRUE(gguf.weights.count(layer + "gate_up_interleaved.weight")) << name << " " << layer;
      EXPECT_FALSE(gguf.weights.count(layer + "gate_proj.weight")) << name << " " << layer;
      EXPECT_FALSE(gguf.weights.count(layer + "up_proj.weight")) << name << " " << layer;
      Tensor both = gguf.weights.at(layer + "gate_up_interleaved.weight");
      ASSERT_EQ(both.shape(), (Shape{2 * f, d}));
      both = both.reshape({f, 2, d});
      for (int which : {0, 1}) {
        const std::string part = blk + (which == 0 ? "ffn_gate.weight" : "ffn_up.weight");
        std::vector<float> got = both.shrink({{0, f}, {which, which + 1}, {0, d}}).reshape({f, d}).to_vector<float>();
        EXPECT_EQ(got, file.tensors.at(part).to_vector<float>()) << name << " " << part;
      }
    }
  }
  LlmGguf f32 = LoadLlmGguf(kData + "qwen2_f32.gguf");
  EXPECT_FALSE(f32.weights.count("model.layers.0.mlp.gate_up_interleaved.weight"));
  EXPECT_TRUE(f32.weights.count("model.layers.0.mlp.gate_proj.weight"));
}

// A Q4_0 block (a float16 scale, then 16 bytes: elements 0-15 in the low nibbles, 16-31 in the high ones,
// each (nibble - 8) times the scale) as the Q8_0 block of the same values (the scale, then 32 int8).
std::string Q4_0AsQ8_0(const char* block) {
  std::string q8_0(block, 2);
  for (int shift : {0, 4})
    for (int j = 0; j < 16; ++j)
      q8_0.push_back(static_cast<char>(((static_cast<unsigned char>(block[2 + j]) >> shift) & 0xf) - 8));
  return q8_0;
}

// llama_q4_0.gguf with each layer's attn_v.weight re-encoded as Q8_0, value for value: its Q and K are
// Q4_0, its V Q8_0, and its reference logits still hold. The Q8_0 blocks are appended to the data
// section, and attn_v's entry of the tensor table (its type and offset, the fixed-size fields after its
// name and dimensions) points at them.
std::string MixedQkvFile() {
  const std::string source = kData + "llama_q4_0.gguf";
  const nn::GGUFHeader header = nn::gguf_read(source);
  std::ifstream in(source, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  for (const nn::GGUFTensorInfo& t : header.tensors) {
    if (t.name.find(".attn_v.weight") == std::string::npos) continue;
    EXPECT_EQ(t.type, nn::GGMLType::kQ4_0) << t.name;
    bytes.resize((bytes.size() + header.alignment - 1) / header.alignment * header.alignment, '\0');
    const uint64_t offset = bytes.size() - header.data_start;
    for (uint64_t b = 0; b < t.nbytes; b += 18) bytes += Q4_0AsQ8_0(&bytes[t.offset + b]);
    const uint64_t name_bytes = t.name.size();
    const std::string name = std::string(reinterpret_cast<const char*>(&name_bytes), 8) + t.name;
    size_t at = bytes.find(name);
    if (at == std::string::npos) ADD_FAILURE() << t.name << " is not in the tensor table";
    at += name.size();
    uint32_t dims = 0;
    std::memcpy(&dims, &bytes[at], 4);
    at += 4 + 8 * dims;
    const uint32_t type = static_cast<uint32_t>(nn::GGMLType::kQ8_0);
    std::memcpy(&bytes[at], &type, 4);
    std::memcpy(&bytes[at + 4], &offset, 8);
  }
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/llama_q4_0_v_as_q8_0.gguf";
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Q, K and V of different types stay three weights over their own blocks, three matmuls (a kernel
// joining them would dequantize every element in both types): PyTorch's logits and greedy continuation
// still, two kernels a layer more than the file of one type, and the device holds the blocks, nothing
// of a float32 matrix's size.
TEST(LlmGguf, QkvOfDifferentTypesMatchPyTorch) {
  const nlohmann::json& ref = Reference()["llama_q4_0"];
  LlmGguf gguf = LoadLlmGguf(MixedQkvFile());
  EXPECT_FALSE(gguf.weights.count("model.layers.0.self_attn.qkv_proj.weight"));
  EXPECT_TRUE(gguf.weights.count("model.layers.0.self_attn.v_proj.weight"));
  const std::map<std::string, int64_t> bytes = DeviceBytes(gguf.header);
  ASSERT_GT(bytes.count("int8"), 0u);
  LlmModel model(gguf.config, std::move(gguf.weights));
  EXPECT_EQ(model.weight_bytes(), bytes);

  std::vector<int32_t> ids = ref["ids"].get<std::vector<int32_t>>();
  const int64_t t = static_cast<int64_t>(ids.size()), first = ref["first_position"].get<int64_t>();
  std::vector<float> all = model.Forward(Tensor::from_vector(ids, Shape{1, t})).to_vector<float>();
  ExpectNear(std::vector<float>(all.begin() + first * model.vocab(), all.end()), ref["logits"].get<std::vector<float>>(),
             "forward");

  std::vector<int> want = ref["greedy"].get<std::vector<int>>(), got;
  std::vector<float> logits = model.Prefill({ids.begin(), ids.end()});
  while (got.size() < want.size()) {
    got.push_back(Argmax(logits));
    logits = model.Step(got.back());
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(model.weight_bytes(), bytes) << "after running";

  std::unique_ptr<LlmModel> one_type = Load("llama_q4_0");
  one_type->Prefill({ids.begin(), ids.end()});
  for (size_t i = 0; i < want.size(); ++i) one_type->Step(want[i]);
  EXPECT_EQ(model.captured_kernels(), one_type->captured_kernels() + 2 * static_cast<size_t>(model.config().layers));
}

TEST(LlmGguf, ConfigComesFromTheMetadata) {
  LlmGguf llama = LoadLlmGguf(kData + "llama_q8_0.gguf");
  const LlmConfig& c = llama.config;
  EXPECT_EQ(c.model_type, "llama");
  EXPECT_EQ(c.hidden_size, 32);
  EXPECT_EQ(c.intermediate_size, 64);
  EXPECT_EQ(c.layers, 2);
  EXPECT_EQ(c.heads, 4);
  EXPECT_EQ(c.kv_heads, 2);
  EXPECT_EQ(c.head_dim, 8);
  EXPECT_EQ(c.max_positions, 64);
  EXPECT_FLOAT_EQ(c.rms_norm_eps, 1e-5);
  EXPECT_EQ(c.rope_scaling.kind, RopeScaling::Kind::kLinear);
  EXPECT_DOUBLE_EQ(c.rope_scaling.factor, 2.0);
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_FALSE(c.qkv_bias);
  EXPECT_EQ(c.vocab_size, static_cast<int64_t>(llama.header.at("tokenizer.ggml.tokens").as_array().size()));
  EXPECT_EQ(c.bos_token_id, 1);
  EXPECT_EQ(c.eos_token_ids, std::vector<int>{2});
  EXPECT_TRUE(llama.weights.count("lm_head.weight"));
  EXPECT_TRUE(llama.weights.count("model.layers.1.mlp.down_proj.weight"));

  // llama.cpp's llama3 scaling: a divisor per frequency, the factor 8 for the long wavelengths.
  std::vector<double> divisors = LoadLlmGguf(kData + "llama_q4_0.gguf").config.rope_scaling.frequency_divisors;
  ASSERT_EQ(divisors.size(), 4u);
  EXPECT_GT(divisors[0], 1.0);
  EXPECT_LT(divisors[0], 8.0);
  EXPECT_FLOAT_EQ(divisors[3], 8.0);
  EXPECT_TRUE(c.rope_scaling.frequency_divisors.empty());

  LlmGguf qwen2 = LoadLlmGguf(kData + "qwen2_q8_0.gguf");
  EXPECT_EQ(qwen2.config.model_type, "qwen2");
  EXPECT_TRUE(qwen2.config.tie_word_embeddings);
  EXPECT_FALSE(qwen2.weights.count("lm_head.weight"));
  EXPECT_TRUE(qwen2.config.qkv_bias);
  EXPECT_EQ(qwen2.config.kv_heads, 1);
  EXPECT_DOUBLE_EQ(qwen2.config.rope_theta, 1e6);
  EXPECT_EQ(qwen2.config.rope_scaling.kind, RopeScaling::Kind::kNone);
  // The embedding is padded past the tokenizer, as released Qwen2 models are: the rows count.
  EXPECT_EQ(qwen2.config.vocab_size, static_cast<int64_t>(qwen2.header.at("tokenizer.ggml.tokens").as_array().size()) + 5);
}

TEST(LlmGguf, GgufPathsAreToldFromFolders) {
  EXPECT_TRUE(IsGgufPath("m/llama-00001-of-00003.gguf"));
  EXPECT_FALSE(IsGgufPath("models/llama"));
  EXPECT_FALSE(IsGgufPath(".gguf"));
}

void ExpectRefused(const std::string& file, const std::string& message) {
  EXPECT_THAT([&] { LoadLlmGguf(kData + file + ".gguf"); }, ThrowsMessage<Error>(HasSubstr(message))) << file;
}

TEST(LlmGguf, UnknownArchitectureIsRefused) {
  ExpectRefused("bad_architecture", "general.architecture \"gptneox\" is not supported (allowed: llama");
}

TEST(LlmGguf, MissingMetadataKeyIsNamed) {
  ExpectRefused("bad_missing_key", "GGUF metadata has no \"llama.feed_forward_length\" (a positive integer)");
}

TEST(LlmGguf, HeadsThatDoNotDivideAreRefused) {
  ExpectRefused("bad_heads", "llama.attention.head_count 2 is not a multiple of llama.attention.head_count_kv 3");
}

TEST(LlmGguf, TensorOfTheWrongShapeIsNamed) {
  ExpectRefused("bad_shape", "tensor \"blk.0.attn_k.weight\" is (8, 8), expected (4, 8) (from the llama.* metadata)");
}

TEST(LlmGguf, MissingTensorIsNamed) {
  ExpectRefused("bad_missing_tensor", "has no tensor \"blk.0.ffn_up.weight\"");
}

TEST(LlmGguf, RopeFrequencyDivisorsOfTheWrongShapeAreRefused) {
  ExpectRefused("bad_rope_freqs", "tensor \"rope_freqs.weight\" is float32 (3), expected float32 (2)");
}

TEST(LlmGguf, UnsupportedRopeScalingIsRefused) {
  ExpectRefused("bad_rope_scaling", "\"llama.rope.scaling.type\" is \"yarn\", not supported (allowed: none, linear)");
}

}  // namespace
}  // namespace tg::apps
