// Random numbers of the front end: a counter-based Threefry-2x32 stream keyed by manual_seed.
// Counter-based, so the values depend only on (seed, position): identical on every device and run.
#ifndef TG_FRONTEND_RANDOM_H_
#define TG_FRONTEND_RANDOM_H_

#include <array>
#include <cstdint>
#include <vector>

namespace tg {

// Threefry-2x32 with 20 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> key, std::array<uint32_t, 2> counter);

// Restarts the stream: after SetRandomSeed(s) the same calls return the same values.
void SetRandomSeed(uint64_t seed);
// The next |n| values of the stream as floats uniform in [0, 1), and as standard normals
// (Box-Muller over pairs of uniforms).
std::vector<float> UniformFloats(int64_t n);
std::vector<float> NormalFloats(int64_t n);

}  // namespace tg

#endif  // TG_FRONTEND_RANDOM_H_
