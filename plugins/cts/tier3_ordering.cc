// tier3_ordering.cc: T3, ABI 1.1's ordering between devices and page-locked host memory. Each case
// skips when the plugin does not offer the functions it tests (all OPTIONAL), or, for the copy
// between devices, when the plugin has a single device.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cts/device_session.h"
#include "plugins/cts/tiers.h"

namespace tg_cts {
namespace {

bool HasOrdering(const tg_plugin_api& a) {
  return TG_HAS(&a, tg_plugin_api, device_wait_event) && a.event_record != nullptr && a.device_wait_event != nullptr;
}

// event_record after many launches, no other wait: its completion covers every one of them.
void EventRecordCoversEarlierWork(const Plugin& p) {
  DeviceSession s(p);
  if (!TG_HAS(&s.api(), tg_plugin_api, event_record) || s.api().event_record == nullptr) {
    Skip("the plugin has no event_record (ABI 1.1, OPTIONAL)");
  }
  Program prog = s.Compile(s.ExecDialect(), "add_one");
  Buffer buf = s.Alloc(4);
  int32_t zero = 0, got = -1;
  s.Write(buf, 0, &zero, 4);
  for (int i = 0; i < 300; ++i) s.Launch(prog, Grid{}, {BufferArg(buf)});
  tg_event* raw = nullptr;
  Check(s.api(), s.api().event_record(s.device(), nullptr, &raw), "event_record");
  CTS_CHECK(raw != nullptr, "event_record returned no event");
  Event recorded(&s.api(), raw);
  Check(s.api(), s.api().event_wait(recorded.get(), UINT64_MAX), "event_wait on the recorded event");
  uint32_t done = 0;
  Check(s.api(), s.api().event_query(recorded.get(), &done), "event_query");
  CTS_CHECK(done == 1, "event_query says not done after event_wait returned");
  s.Read(buf, 0, &got, 4);
  CTS_CHECK(got == 300, "the recorded event completed with the counter at " + std::to_string(got) + ", not 300");
}

// The other device of the plugin, opened beside the session's; closed by the destructor.
struct OtherDevice {
  explicit OtherDevice(const DeviceSession& s, const Plugin& p) : api(s.api()) {
    if (p.device_count < 2) Skip("the plugin has one device: nothing to order across");
    Check(api, api.device_open((p.device_ordinal + 1) % p.device_count, &device), "device_open(other device)");
  }
  ~OtherDevice() {
    if (device != nullptr) api.device_close(device);
  }
  const tg_plugin_api& api;
  tg_device* device = nullptr;
};

// Work on device A, a copy to device B ordered by an event instead of a host wait, and A's next
// kernel (which overwrites the source) ordered after the copy: B gets the value of that moment.
void CopyBetweenDevicesOrderedByEvents(const Plugin& p) {
  DeviceSession s(p);
  if (!HasOrdering(s.api())) Skip("the plugin has no event_record / device_wait_event (ABI 1.1, OPTIONAL)");
  if (s.api().copy_d2d == nullptr) Skip("the plugin has no copy_d2d");
  OtherDevice other(s, p);
  const tg_plugin_api& a = s.api();
  Program prog = s.Compile(s.ExecDialect(), "add_one");
  Buffer on_a = s.Alloc(4);
  tg_buffer* raw_b = nullptr;
  Check(a, a.buffer_alloc(other.device, 4, 0, &raw_b), "buffer_alloc on the other device");
  Buffer on_b(&a, raw_b);
  int32_t zero = 0, got = -1;
  s.Write(on_a, 0, &zero, 4);
  for (int i = 0; i < 500; ++i) s.Launch(prog, Grid{}, {BufferArg(on_a)});
  tg_event* written = nullptr;
  Check(a, a.event_record(s.device(), nullptr, &written), "event_record on device A");
  Check(a, a.device_wait_event(other.device, nullptr, written), "device_wait_event on device B");
  a.event_destroy(written);  // the wait keeps what it needs
  Check(a, a.copy_d2d(nullptr, on_b.get(), 0, on_a.get(), 0, 4, nullptr), "copy_d2d A -> B");
  tg_event* copied = nullptr;
  Check(a, a.event_record(other.device, nullptr, &copied), "event_record on device B");
  Check(a, a.device_wait_event(s.device(), nullptr, copied), "device_wait_event on device A");
  a.event_destroy(copied);
  s.Launch(prog, Grid{}, {BufferArg(on_a)});  // 501 on A, after the copy has read 500
  Check(a, a.stream_sync(other.device, nullptr), "stream_sync on device B");
  Check(a, a.copy_d2h(nullptr, &got, on_b.get(), 0, 4, nullptr), "copy_d2h from device B");
  CTS_CHECK(got == 500, "device B got " + std::to_string(got) + " from device A, want 500");
  s.Sync();
  s.Read(on_a, 0, &got, 4);
  CTS_CHECK(got == 501, "device A's counter is " + std::to_string(got) + ", want 501");
}

// host_alloc memory as the source and destination of asynchronous copies.
void HostAllocRoundTrip(const Plugin& p) {
  DeviceSession s(p);
  const tg_plugin_api& a = s.api();
  if (!TG_HAS(&a, tg_plugin_api, host_free) || a.host_alloc == nullptr) {
    Skip("the plugin has no host_alloc (ABI 1.1, OPTIONAL)");
  }
  CTS_CHECK(a.host_free != nullptr, "host_alloc without host_free");
  const uint64_t n = (uint64_t{1} << 20) + 13;
  void* in = nullptr;
  void* out = nullptr;
  Check(a, a.host_alloc(s.device(), n, &in), "host_alloc");
  Check(a, a.host_alloc(s.device(), n, &out), "host_alloc");
  CTS_CHECK(in != nullptr && out != nullptr, "host_alloc returned NULL");
  auto* bytes = static_cast<uint8_t*>(in);
  for (uint64_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i * 7 + (i >> 9));
  std::memset(out, 0, n);
  Buffer b = s.Alloc(n);
  tg_event *up = nullptr, *down = nullptr;
  Check(a, a.copy_h2d(nullptr, b.get(), 0, in, n, &up), "copy_h2d from host_alloc memory");
  Check(a, a.copy_d2h(nullptr, out, b.get(), 0, n, &down), "copy_d2h into host_alloc memory");
  Event up_done(&a, up), down_done(&a, down);
  Check(a, a.event_wait(down_done.get(), UINT64_MAX), "event_wait for the download");
  CTS_CHECK(std::memcmp(in, out, n) == 0, "page-locked round trip changed the data");
  Check(a, a.event_wait(up_done.get(), UINT64_MAX), "event_wait for the upload");
  a.host_free(s.device(), in);
  a.host_free(s.device(), out);
  Status zero = Take(a, a.host_alloc(s.device(), 0, &in));
  CTS_CHECK(zero.code == TG_CODE_INVALID_ARGUMENT, "host_alloc(0): want INVALID_ARGUMENT, got " + Describe(zero));
}

}  // namespace

std::vector<Case> Tier3OrderingCases() {
  return {
      {3, "Ordering.event_record_covers_earlier_work", EventRecordCoversEarlierWork},
      {3, "Ordering.copy_between_devices_by_events", CopyBetweenDevicesOrderedByEvents},
      {3, "Memory.host_alloc_round_trip", HostAllocRoundTrip},
  };
}

}  // namespace tg_cts
