// tier1_memory.cc: T1, buffers and copies: sizes, offsets, refusals, and 10k cycles without leaks.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "plugins/cts/device_session.h"
#include "plugins/cts/tiers.h"

namespace tg_cts {
namespace {

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 131 + (i >> 8));
  return v;
}

void RoundTrip(const DeviceSession& s, uint64_t bytes) {
  Buffer b = s.Alloc(bytes);
  std::vector<uint8_t> in = Pattern(bytes, static_cast<uint8_t>(bytes)), out(bytes, 0);
  s.Write(b, 0, in.data(), bytes);
  s.Read(b, 0, out.data(), bytes);
  CTS_CHECK(in == out, std::to_string(bytes) + "-byte round trip changed the data");
}

void AllocOneByte(const Plugin& p) { RoundTrip(DeviceSession(p), 1); }

void AllocOddSizes(const Plugin& p) {
  DeviceSession s(p);
  for (uint64_t n : {3, 4097, 65537}) RoundTrip(s, n);
}

void AllocZeroRefused(const Plugin& p) {
  DeviceSession s(p);
  tg_buffer* b = nullptr;
  Status st = Take(s.api(), s.api().buffer_alloc(s.device(), 0, 0, &b));
  if (st.ok() && b != nullptr) s.api().buffer_free(b);
  CTS_CHECK(st.code == TG_CODE_INVALID_ARGUMENT, "alloc(0): want INVALID_ARGUMENT, got " + Describe(st));
  CTS_CHECK(!st.message.empty(), "empty error message");
}

void AllocAbsurdRefused(const Plugin& p) {
  DeviceSession s(p);
  for (uint64_t n : {uint64_t{1} << 62, ~uint64_t{0}}) {
    tg_buffer* b = nullptr;
    Status st = Take(s.api(), s.api().buffer_alloc(s.device(), n, 0, &b));
    if (st.ok() && b != nullptr) s.api().buffer_free(b);
    CTS_CHECK(st.code == TG_CODE_RESOURCE_EXHAUSTED || st.code == TG_CODE_INVALID_ARGUMENT,
              "alloc(" + std::to_string(n) + "): want RESOURCE_EXHAUSTED, got " + Describe(st));
  }
  RoundTrip(s, 64);  // and the device still works
}

// Writes pieces at unaligned offsets, reads back through other offsets, compares with a host copy.
void RoundTripOffsets(const Plugin& p) {
  DeviceSession s(p);
  const uint64_t n = 8192;
  Buffer b = s.Alloc(n);
  std::vector<uint8_t> host(n, 0);
  s.Write(b, 0, host.data(), n);
  const uint64_t pieces[][2] = {{0, 1}, {1, 7}, {13, 4000}, {4096, 3}, {8191, 1}, {5000, 3191}};
  uint8_t seed = 1;
  for (const auto& pc : pieces) {
    std::vector<uint8_t> data = Pattern(pc[1], seed++);
    s.Write(b, pc[0], data.data(), pc[1]);
    std::memcpy(host.data() + pc[0], data.data(), pc[1]);
  }
  for (uint64_t off : {0, 3, 4095, 8000}) {
    std::vector<uint8_t> got(n - off);
    s.Read(b, off, got.data(), got.size());
    CTS_CHECK(std::memcmp(got.data(), host.data() + off, got.size()) == 0,
              "read at offset " + std::to_string(off) + " differs from what was written");
  }
}

// Copies with |done| events: host memory stays ours until the event completes.
void RoundTripAsync(const Plugin& p) {
  DeviceSession s(p);
  const uint64_t n = 1 << 20;
  Buffer b = s.Alloc(n);
  std::vector<uint8_t> in = Pattern(n, 7), out(n, 0);
  tg_event* up = nullptr;
  Check(s.api(), s.api().copy_h2d(nullptr, b.get(), 0, in.data(), n, &up), "copy_h2d with event");
  CTS_CHECK(up != nullptr, "copy_h2d returned no event");
  Event up_done(&s.api(), up);
  Check(s.api(), s.api().event_wait(up, UINT64_MAX), "event_wait(h2d)");
  tg_event* down = nullptr;
  Check(s.api(), s.api().copy_d2h(nullptr, out.data(), b.get(), 0, n, &down), "copy_d2h with event");
  CTS_CHECK(down != nullptr, "copy_d2h returned no event");
  Event down_done(&s.api(), down);
  Check(s.api(), s.api().event_wait(down, UINT64_MAX), "event_wait(d2h)");
  uint32_t done = 0;
  Check(s.api(), s.api().event_query(down, &done), "event_query");
  CTS_CHECK(done == 1, "event_query after event_wait says not done");
  CTS_CHECK(in == out, "async round trip changed the data");
}

void CopyOutOfRangeRefused(const Plugin& p) {
  DeviceSession s(p);
  Buffer b = s.Alloc(4096);
  std::vector<uint8_t> host(64, 1);
  const uint64_t cases[][2] = {{4090, 10}, {4096, 1}, {~uint64_t{0} - 1, 8}};  // last one overflows
  for (const auto& c : cases) {
    std::string what = "offset " + std::to_string(c[0]) + " + " + std::to_string(c[1]) + " bytes";
    Status up = Take(s.api(), s.api().copy_h2d(nullptr, b.get(), c[0], host.data(), c[1], nullptr));
    CTS_CHECK(up.code == TG_CODE_INVALID_ARGUMENT, "copy_h2d " + what + " of 4096: got " + Describe(up));
    Status down = Take(s.api(), s.api().copy_d2h(nullptr, host.data(), b.get(), c[0], c[1], nullptr));
    CTS_CHECK(down.code == TG_CODE_INVALID_ARGUMENT, "copy_d2h " + what + " of 4096: got " + Describe(down));
  }
  RoundTrip(s, 4096);
}

void CopyD2D(const Plugin& p) {
  DeviceSession s(p);
  if (s.api().copy_d2d == nullptr) Skip("copy_d2d is NULL (optional; the host stages through memory)");
  Buffer a = s.Alloc(4096), b = s.Alloc(4096);
  std::vector<uint8_t> in = Pattern(4096, 3), out(4096, 0);
  s.Write(a, 0, in.data(), 4096);
  s.Write(b, 0, out.data(), 4096);
  Check(s.api(), s.api().copy_d2d(nullptr, b.get(), 100, a.get(), 7, 3000, nullptr), "copy_d2d");
  s.Sync();
  s.Read(b, 0, out.data(), 4096);
  std::vector<uint8_t> want(4096, 0);
  std::memcpy(want.data() + 100, in.data() + 7, 3000);
  CTS_CHECK(out == want, "copy_d2d(dst+100 <- src+7, 3000 bytes) gave other bytes");
  Status bad = Take(s.api(), s.api().copy_d2d(nullptr, b.get(), 4000, a.get(), 0, 200, nullptr));
  CTS_CHECK(bad.code == TG_CODE_INVALID_ARGUMENT, "out-of-range copy_d2d: got " + Describe(bad));
}

// Overlapping ranges within one buffer behave like memmove (tg_plugin.h: copy_d2d).
void CopyD2DOverlap(const Plugin& p) {
  DeviceSession s(p);
  if (s.api().copy_d2d == nullptr) Skip("copy_d2d is NULL (optional; the host stages through memory)");
  Buffer a = s.Alloc(4096);
  std::vector<uint8_t> host = Pattern(4096, 9), out(4096);
  s.Write(a, 0, host.data(), 4096);
  Check(s.api(), s.api().copy_d2d(nullptr, a.get(), 10, a.get(), 0, 3000, nullptr), "copy_d2d forward");
  std::memmove(host.data() + 10, host.data(), 3000);
  Check(s.api(), s.api().copy_d2d(nullptr, a.get(), 1000, a.get(), 1500, 2000, nullptr), "copy_d2d back");
  std::memmove(host.data() + 1000, host.data() + 1500, 2000);
  s.Sync();
  s.Read(a, 0, out.data(), 4096);
  CTS_CHECK(out == host, "overlapping copy_d2d is not memmove");
}

long VmRssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

void AllocFree10k(const Plugin& p) {
  DeviceSession s(p);
  auto cycle = [&s](int n) {
    for (int i = 0; i < n; ++i) {
      Buffer b = s.Alloc(4096 + (i % 7) * 1000);  // freed at the end of each iteration
    }
  };
  cycle(200);  // warm up allocator caches before measuring
  long before = VmRssKb();
  cycle(10000);
  long after = VmRssKb();
  RoundTrip(s, 4096);
  // 10k buffers of ~7 KiB would be ~70 MiB if none came back; allow 16 MiB of noise.
  if (before >= 0 && after >= 0) {
    CTS_CHECK(after - before < 16 * 1024, "VmRSS grew by " + std::to_string(after - before) +
                                              " KiB over 10k alloc/free cycles");
  }
}

// The plugin's "tg.memory_stats" (tg_plugin.h), or a skip saying it has none.
const tg_memory_stats_ext& MemoryStatsOf(const tg_plugin_api& api) {
  for (const tg_ext* e = api.extensions; e != nullptr; e = e->next) {
    if (e->name == nullptr || std::strcmp(e->name, TG_MEMORY_STATS_NAME) != 0 || e->version < 1) continue;
    const auto* ext = reinterpret_cast<const tg_memory_stats_ext*>(e);
    if (e->struct_size < TG_SIZE_TO(tg_memory_stats_ext, device_memory_stats) || ext->device_memory_stats == nullptr)
      Fail(std::string(TG_MEMORY_STATS_NAME) + " is too short for version 1 or has no device_memory_stats");
    return *ext;
  }
  Skip(std::string("the plugin has no ") + TG_MEMORY_STATS_NAME + " extension");
}

tg_memory_stats Stats(const DeviceSession& s, const tg_memory_stats_ext& ext) {
  tg_memory_stats m{};
  m.struct_size = sizeof m;
  Check(s.api(), ext.device_memory_stats(s.device(), &m), "device_memory_stats");
  return m;
}

// bytes_in_use rises by exactly what buffer_alloc was asked for and falls back once the buffers are
// freed (a leak shows here before VmRSS notices); the peak, count and largest follow; a caller's
// shorter struct is written no further than its struct_size; NULL arguments are refused.
void MemoryStatsTrackBuffers(const Plugin& p) {
  const tg_memory_stats_ext& ext = MemoryStatsOf(RequireApi(p));
  DeviceSession s(p);
  const tg_memory_stats before = Stats(s, ext);
  {
    Buffer a = s.Alloc(4097), b = s.Alloc(65537), c = s.Alloc(1);
    const tg_memory_stats during = Stats(s, ext);
    CTS_CHECK(during.bytes_in_use == before.bytes_in_use + 4097 + 65537 + 1,
              "bytes_in_use went from " + std::to_string(before.bytes_in_use) + " to " +
                  std::to_string(during.bytes_in_use) + " over buffers of 4097 + 65537 + 1 bytes");
    CTS_CHECK(during.num_allocs == before.num_allocs + 3, "num_allocs did not count 3 allocations");
    CTS_CHECK(during.largest_alloc_size >= 65537, "largest_alloc_size is below a 65537-byte buffer");
    CTS_CHECK(during.peak_bytes_in_use >= during.bytes_in_use, "peak_bytes_in_use is below bytes_in_use");
  }
  s.Sync();  // frees deferred behind pending work have happened
  const tg_memory_stats after = Stats(s, ext);
  CTS_CHECK(after.bytes_in_use == before.bytes_in_use, "bytes_in_use is " + std::to_string(after.bytes_in_use) +
                                                            " after freeing every buffer, was " +
                                                            std::to_string(before.bytes_in_use));
  CTS_CHECK(after.peak_bytes_in_use >= before.bytes_in_use + 4097 + 65537 + 1, "the peak forgot the three buffers");

  struct {
    tg_memory_stats head;
    uint64_t guard;
  } short_caller{};
  short_caller.head.struct_size = TG_SIZE_TO(tg_memory_stats, bytes_in_use);
  short_caller.head.peak_bytes_in_use = 7;  // past the caller's struct_size: must stay as it was
  Check(s.api(), ext.device_memory_stats(s.device(), &short_caller.head), "device_memory_stats (short struct)");
  CTS_CHECK(short_caller.head.struct_size == TG_SIZE_TO(tg_memory_stats, bytes_in_use), "struct_size was rewritten");
  CTS_CHECK(short_caller.head.peak_bytes_in_use == 7, "wrote past the caller's struct_size");

  tg_memory_stats m{};
  m.struct_size = sizeof m;
  Status null_device = Take(s.api(), ext.device_memory_stats(nullptr, &m));
  Status null_stats = Take(s.api(), ext.device_memory_stats(s.device(), nullptr));
  CTS_CHECK(null_device.code == TG_CODE_INVALID_ARGUMENT, "NULL device: want INVALID_ARGUMENT, got " + Describe(null_device));
  CTS_CHECK(null_stats.code == TG_CODE_INVALID_ARGUMENT, "NULL stats: want INVALID_ARGUMENT, got " + Describe(null_stats));
}

}  // namespace

std::vector<Case> Tier1MemoryCases() {
  return {
      {1, "Memory.alloc_one_byte", AllocOneByte},
      {1, "Memory.alloc_odd_sizes", AllocOddSizes},
      {1, "Memory.alloc_zero_refused", AllocZeroRefused},
      {1, "Memory.alloc_absurd_refused", AllocAbsurdRefused},
      {1, "Memory.round_trip_offsets", RoundTripOffsets},
      {1, "Memory.round_trip_async", RoundTripAsync},
      {1, "Memory.copy_out_of_range_refused", CopyOutOfRangeRefused},
      {1, "Memory.copy_d2d", CopyD2D},
      {1, "Memory.copy_d2d_overlap", CopyD2DOverlap},
      {1, "Memory.alloc_free_10k", AllocFree10k},
      {1, "Memory.stats_track_buffers", MemoryStatsTrackBuffers},
  };
}

}  // namespace tg_cts
