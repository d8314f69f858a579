#include "ir/stable_hash.h"

#include <bit>
#include <cstdio>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace tg {
namespace {

// Two FNV-1a lanes with different offsets, finished with splitmix64: 128 bits, so accidental
// collisions between cache keys are not a concern; no seed, so the value is stable across processes.
class Hasher {
 public:
  void Feed(std::string_view s) {
    uint64_t n = s.size();
    for (int i = 0; i < 8; ++i) Byte(static_cast<unsigned char>(n >> (8 * i)));
    for (char c : s) Byte(static_cast<unsigned char>(c));
  }
  std::string Hex() const {
    char out[33];
    std::snprintf(out, sizeof out, "%016llx%016llx", static_cast<unsigned long long>(Mix(a_)),
                  static_cast<unsigned long long>(Mix(b_ ^ a_)));
    return out;
  }

 private:
  void Byte(unsigned char c) {
    a_ = (a_ ^ c) * 0x100000001b3ULL;
    b_ = (b_ ^ c) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
  }
  static uint64_t Mix(uint64_t h) {
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
  }
  uint64_t a_ = 0xcbf29ce484222325ULL, b_ = 0x84222325cbf29ce4ULL;
};

// ArgString is readable but rounds doubles; their bits are what equality uses.
std::string StableArg(const Arg& arg) {
  if (const double* d = std::get_if<double>(&arg)) return absl::StrCat("f", std::bit_cast<uint64_t>(*d));
  return absl::StrCat(arg.index(), ":", ArgString(arg));
}

}  // namespace

std::string StableHash(const UOpRef& root) {
  Hasher h;
  absl::flat_hash_map<const UOp*, size_t> position;
  for (const UOpRef& u : root->toposort()) {
    position[u.get()] = position.size();
    h.Feed(OpName(u->op()));
    h.Feed(u->dtype().name());
    h.Feed(StableArg(u->arg()));
    // Sources by their place in the (deterministic) toposort: shared subgraphs stay shared.
    std::string srcs;
    for (const UOpRef& s : u->src()) absl::StrAppend(&srcs, position.at(s.get()), ",");
    h.Feed(srcs);
  }
  return h.Hex();
}

std::string StableHashBytes(std::string_view bytes) {
  Hasher h;
  h.Feed(bytes);
  return h.Hex();
}

}  // namespace tg
