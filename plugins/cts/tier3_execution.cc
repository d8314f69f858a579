// tier3_execution.cc: T3, results against a host reference, ordering, events and timing.
// Runs in the first declared dialect the corpus covers (DeviceSession::ExecDialect).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "plugins/cts/device_session.h"
#include "plugins/cts/kernel_corpus.h"
#include "plugins/cts/tiers.h"

namespace tg_cts {
namespace {

// A large vadd on random data at a nonzero buffer offset; bytes before the offset stay untouched.
void VaddMatchesHost(const Plugin& p) {
  DeviceSession s(p);
  Program prog = s.Compile(s.ExecDialect(), "vadd");
  const int n = (1 << 20) + 3;
  const uint64_t off = ((std::max<uint64_t>(s.props().min_offset_align, 64) + 3) / 4) * 4;
  const int pad = static_cast<int>(off / 4);
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> dist(-1e3f, 1e3f);
  std::vector<float> a(n), b(n), out(n + pad, 42.0f);
  for (int i = 0; i < n; ++i) a[i] = dist(rng), b[i] = dist(rng);
  Buffer bo = s.Alloc((n + pad) * 4), ba = s.Alloc(n * 4), bb = s.Alloc(n * 4);
  s.Write(ba, 0, a.data(), n * 4);
  s.Write(bb, 0, b.data(), n * 4);
  s.Write(bo, 0, out.data(), out.size() * 4);
  s.Launch(prog, Linear(s, n, 256), {BufferArg(bo, off), BufferArg(ba), BufferArg(bb), I32Arg(n)});
  s.Sync();
  out = s.ReadAll<float>(bo, n + pad);
  for (int i = 0; i < pad; ++i) CTS_CHECK(out[i] == 42.0f, "wrote before the buffer offset");
  for (int i = 0; i < n; ++i) {
    CTS_CHECK(out[pad + i] == a[i] + b[i], "element " + std::to_string(i) + " differs from the host");
  }
}

// 1000 launches of buf[0] += 1 on the default stream, no waits in between: in order, none lost.
void OrderedLaunches(const Plugin& p) {
  DeviceSession s(p);
  Program prog = s.Compile(s.ExecDialect(), "add_one");
  Buffer buf = s.Alloc(4);
  int32_t zero = 0, got = -1;
  s.Write(buf, 0, &zero, 4);
  for (int i = 0; i < 1000; ++i) s.Launch(prog, Grid{}, {BufferArg(buf)});
  s.Sync();
  s.Read(buf, 0, &got, 4);
  CTS_CHECK(got == 1000, "after 1000 ordered launches the counter is " + std::to_string(got));
}

Event LaunchBusy(const DeviceSession& s, const Program& prog, const Buffer& out, int32_t iters,
                 uint32_t flags = 0) {
  tg_event* ev = nullptr;
  Check(s.api(), s.LaunchRaw(prog, Grid{}, {BufferArg(out), I32Arg(iters)}, flags, &ev), "launch(busy)");
  CTS_CHECK(ev != nullptr, "launch with out_done returned no event");
  return Event(&s.api(), ev);
}

void EventWaitAndQuery(const Plugin& p) {
  DeviceSession s(p);
  Program prog = s.Compile(s.ExecDialect(), "busy");
  Buffer out = s.Alloc(4);
  Event ev = LaunchBusy(s, prog, out, 100000);
  uint32_t done = 7;
  Check(s.api(), s.api().event_query(ev.get(), &done), "event_query before the wait");
  CTS_CHECK(done == 0 || done == 1, "event_query wrote " + std::to_string(done));
  Check(s.api(), s.api().event_wait(ev.get(), UINT64_MAX), "event_wait");
  Check(s.api(), s.api().event_query(ev.get(), &done), "event_query after the wait");
  CTS_CHECK(done == 1, "event_query says not done after event_wait returned");
  uint32_t got = 0;
  s.Read(out, 0, &got, 4);  // the event covered the kernel: its result is there
  CTS_CHECK(got == BusyReference(100000), "busy(100000) = " + std::to_string(got));
}

// A zero timeout answers at once: OK (already done) or DEADLINE_EXCEEDED, and the work goes on.
void EventWaitTimeout(const Plugin& p) {
  DeviceSession s(p);
  Program prog = s.Compile(s.ExecDialect(), "busy");
  Buffer out = s.Alloc(4);
  Event ev = LaunchBusy(s, prog, out, 20000000);
  Status st = Take(s.api(), s.api().event_wait(ev.get(), 0));
  CTS_CHECK(st.ok() || st.code == TG_CODE_DEADLINE_EXCEEDED, "event_wait(timeout 0): " + Describe(st));
  Check(s.api(), s.api().event_wait(ev.get(), UINT64_MAX), "event_wait after a timeout");
  uint32_t got = 0;
  s.Read(out, 0, &got, 4);
  CTS_CHECK(got == BusyReference(20000000), "busy kernel result wrong after a timed-out wait");
}

uint64_t TimedBusy(const DeviceSession& s, const Program& prog, const Buffer& out, int32_t iters) {
  Event ev = LaunchBusy(s, prog, out, iters, TG_LAUNCH_PROFILE);
  Check(s.api(), s.api().event_wait(ev.get(), UINT64_MAX), "event_wait");
  uint64_t start = 0, end = 0;
  Check(s.api(), s.api().event_timing_ns(ev.get(), &start, &end), "event_timing_ns");
  CTS_CHECK(end >= start, "end " + std::to_string(end) + " < start " + std::to_string(start));
  CTS_CHECK(end > start, "a busy loop of " + std::to_string(iters) + " iterations took 0 ns");
  return end - start;
}

// Device-clock timing tracks the work: ten times the loop takes longer.
void Timing(const Plugin& p) {
  DeviceSession s(p);
  if (!s.HasCap(TG_CAP_TIMING)) Skip("the device does not declare TG_CAP_TIMING");
  if (s.api().event_timing_ns == nullptr) Fail("TG_CAP_TIMING declared but event_timing_ns is NULL");
  Program prog = s.Compile(s.ExecDialect(), "busy");
  Buffer out = s.Alloc(4);
  TimedBusy(s, prog, out, 1000);  // warm-up: first launches may include one-time costs
  uint64_t short_ns = TimedBusy(s, prog, out, 2000000);
  uint64_t long_ns = TimedBusy(s, prog, out, 20000000);
  CTS_CHECK(long_ns > short_ns, "10x the work took " + std::to_string(long_ns) + " ns vs " +
                                    std::to_string(short_ns) + " ns");
}

// add_one once on a zeroed counter: whether the device still runs kernels (1).
int32_t AddOneOnce(const DeviceSession& s, const std::string& dialect) {
  Program add = s.Compile(dialect, "add_one");
  Buffer buf = s.Alloc(4);
  int32_t zero = 0, got = -1;
  s.Write(buf, 0, &zero, 4);
  s.Launch(add, Grid{}, {BufferArg(buf)});
  s.Sync();
  s.Read(buf, 0, &got, 4);
  return got;
}

// A kernel that faults: its error surfaces at event_wait (never success), and the device is usable
// afterwards, reopened where the fault was sticky (ABORTED, as the ABI asks of a device that faulted).
void FaultingKernelIsReported(const Plugin& p) {
  std::string dialect;
  {
    DeviceSession s(p);
    dialect = s.ExecDialect();
    if (!KernelSource(p, dialect, "fault").has_value()) {
      Skip("no fault kernel in " + dialect + " (opencl-c has none: no fault is portable there)");
    }
    Program prog = s.Compile(dialect, "fault");
    tg_event* raw = nullptr;
    Check(s.api(), s.LaunchRaw(prog, Grid{}, {}, 0, &raw), "launch(fault): errors of a running kernel surface later");
    CTS_CHECK(raw != nullptr, "launch with out_done returned no event");
    Event done(&s.api(), raw);
    Status waited = Take(s.api(), s.api().event_wait(done.get(), UINT64_MAX));
    CTS_CHECK(!waited.ok(), "event_wait of a faulting kernel returned success");
    CTS_CHECK(!waited.message.empty(), "the fault's error has no message");
    Take(s.api(), s.api().stream_sync(s.device(), nullptr));  // may report it once more
    if (waited.code != TG_CODE_ABORTED) {
      CTS_CHECK(AddOneOnce(s, dialect) == 1,
                "after a fault reported as " + Describe(waited) + " (not ABORTED) the device no longer runs add_one");
      return;
    }
  }
  DeviceSession reopened(p);  // after ABORTED the host closes and reopens the device
  CTS_CHECK(AddOneOnce(reopened, dialect) == 1, "a device reopened after an ABORTED fault does not run add_one");
}

}  // namespace

std::vector<Case> Tier3ExecutionCases() {
  return {
      {3, "Execution.vadd_matches_host", VaddMatchesHost},
      {3, "Execution.ordered_launches_1000", OrderedLaunches},
      {3, "Execution.event_wait_and_query", EventWaitAndQuery},
      {3, "Execution.event_wait_timeout", EventWaitTimeout},
      {3, "Execution.faulting_kernel_reported", FaultingKernelIsReported},
      {3, "Execution.timing", Timing},
  };
}

}  // namespace tg_cts
