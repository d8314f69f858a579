#include "frontend/random.h"

#include <cmath>
#include <cstring>
#include <mutex>
#include <numbers>

#include "frontend/host_effects.h"

namespace tg {
namespace {

constexpr std::array<int, 8> kRotations = {13, 15, 26, 6, 17, 29, 16, 24};
constexpr uint32_t kParity = 0x1BD11BDA;

uint32_t RotateLeft(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

struct Stream {
  std::mutex mu;
  uint64_t seed = 0;
  uint64_t position = 0;  // how many 32-bit words were handed out since the seed was set
};

Stream& GlobalStream() {
  static Stream* stream = new Stream();
  return *stream;
}

// Reserves |n| words and returns the position of the first.
uint64_t Reserve(int64_t n, std::array<uint32_t, 2>& key) {
  Stream& s = GlobalStream();
  std::lock_guard<std::mutex> lock(s.mu);
  key = {static_cast<uint32_t>(s.seed), static_cast<uint32_t>(s.seed >> 32)};
  uint64_t first = s.position;
  s.position += static_cast<uint64_t>(n);
  return first;
}

std::vector<uint32_t> RandomWords(int64_t n) {
  NoteHostEffect();
  std::array<uint32_t, 2> key;
  uint64_t first = Reserve(n, key);
  std::vector<uint32_t> words(n);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t c = first + static_cast<uint64_t>(i);
    words[i] = Threefry2x32(key, {static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32)})[0];
  }
  return words;
}

// 23 random mantissa bits under the exponent of 1.0 give [1, 2); minus one gives [0, 1).
float WordToUnit(uint32_t w) {
  uint32_t bits = (w >> 9) | 0x3F800000u;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

}  // namespace

std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> key, std::array<uint32_t, 2> counter) {
  std::array<uint32_t, 3> ks = {key[0], key[1], kParity ^ key[0] ^ key[1]};
  uint32_t x0 = counter[0] + ks[0], x1 = counter[1] + ks[1];
  for (int round = 0; round < 20; ++round) {
    x0 += x1;
    x1 = RotateLeft(x1, kRotations[round % 8]) ^ x0;
    if (round % 4 == 3) {  // key injection after every 4 rounds
      uint32_t inject = static_cast<uint32_t>(round / 4 + 1);
      x0 += ks[inject % 3];
      x1 += ks[(inject + 1) % 3] + inject;
    }
  }
  return {x0, x1};
}

void SetRandomSeed(uint64_t seed) {
  Stream& s = GlobalStream();
  std::lock_guard<std::mutex> lock(s.mu);
  s.seed = seed;
  s.position = 0;
}

std::vector<float> UniformFloats(int64_t n) {
  std::vector<uint32_t> words = RandomWords(n);
  std::vector<float> out(n);
  for (int64_t i = 0; i < n; ++i) out[i] = WordToUnit(words[i]);
  return out;
}

std::vector<float> NormalFloats(int64_t n) {
  std::vector<float> u = UniformFloats(2 * ((n + 1) / 2));
  std::vector<float> out(n);
  for (int64_t i = 0; i < n; i += 2) {
    // 1 - u is in (0, 1], so the log is finite.
    double radius = std::sqrt(-2.0 * std::log(1.0 - u[i]));
    double angle = 2.0 * std::numbers::pi * u[i + 1];
    out[i] = static_cast<float>(radius * std::cos(angle));
    if (i + 1 < n) out[i + 1] = static_cast<float>(radius * std::sin(angle));
  }
  return out;
}

}  // namespace tg
