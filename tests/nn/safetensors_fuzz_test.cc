// tg::nn::safe_load on thousands of truncated and byte-corrupted files (fixed seeds): each either loads
// or throws tg::Error, never crashes; a loaded tensor can always be read.
#include <cstdlib>
#include <fstream>
#include <random>

#include "frontend/nn/nn.h"
#include "gtest/gtest.h"

namespace tg::nn {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

// Loads |bytes| as a file and reads every tensor; false when it threw tg::Error.
bool LoadsAndReads(const std::string& bytes) {
  std::string path = TempPath("fuzz.safetensors");
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  try {
    for (auto& [name, t] : safe_load(path)) (void)t.to_bytes();
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::string Seed() {
  StateDict sd = {{"w", Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3})},
                  {"i", Tensor::from_vector<int64_t>({7, -8})},
                  {"h", Tensor::from_vector<float>({0.5f}).half()},
                  {"m", Tensor::from_vector<bool>({true, false})}};
  std::string path = TempPath("seed.safetensors");
  safe_save(sd, path, {{"note", "seed"}});
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(SafetensorsFuzz, TruncationsNeverCrash) {
  std::string seed = Seed();
  ASSERT_TRUE(LoadsAndReads(seed));
  int ok = 0;
  for (size_t n = 0; n < seed.size(); ++n) ok += LoadsAndReads(seed.substr(0, n));
  EXPECT_EQ(ok, 0);  // every tensor's bytes sit at the end: any cut loses some
}

TEST(SafetensorsFuzz, CorruptedBytesNeverCrash) {
  std::string seed = Seed();
  std::mt19937 rng(1234);
  // Header bytes matter most: corrupt there three times in four.
  size_t header_end = 8 + static_cast<size_t>(static_cast<unsigned char>(seed[0]));
  int loaded = 0, rejected = 0;
  for (int variant = 0; variant < 3000; ++variant) {
    std::string bytes = seed;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      size_t limit = rng() % 4 ? header_end : bytes.size();
      size_t pos = rng() % limit;
      switch (rng() % 3) {
        case 0: bytes[pos] = static_cast<char>(rng()); break;               // random byte
        case 1: bytes[pos] = "0123456789[]{},:\"-e."[rng() % 20]; break;    // JSON-ish byte
        default: bytes.erase(pos, 1 + rng() % 3); break;                      // deletion
      }
    }
    (LoadsAndReads(bytes) ? loaded : rejected)++;
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(loaded, 0);  // corruption inside the data section still loads
}

}  // namespace
}  // namespace tg::nn
