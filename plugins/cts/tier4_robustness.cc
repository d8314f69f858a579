// tier4_robustness.cc: T4, concurrent threads, teardown with live objects, shutdown and re-init.
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "plugins/cts/device_session.h"
#include "plugins/cts/kernel_corpus.h"
#include "plugins/cts/tiers.h"

namespace tg_cts {
namespace {

constexpr int kThreads = 4;
constexpr int kLaunchesPerThread = 100;

// One thread's work: its own program, buffer and (if the plugin has them) stream. On the default
// stream the CTS serializes enqueueing calls, as the ABI asks of hosts; compile, alloc, free and
// waits stay concurrent.
std::string ThreadBody(const DeviceSession& s, const std::string& dialect, std::mutex* enqueue) {
  try {
    tg_stream* raw = nullptr;
    if (s.api().stream_create != nullptr) {  // UNIMPLEMENTED is allowed: use the default stream
      Status st = Take(s.api(), s.api().stream_create(s.device(), &raw));
      if (!st.ok() && st.code != TG_CODE_UNIMPLEMENTED) Fail("stream_create: " + Describe(st));
      if (!st.ok()) raw = nullptr;
    }
    Stream stream(&s.api(), raw);
    Program prog = s.Compile(dialect, "add_one");  // concurrent compiles: must be thread-safe
    Buffer buf = s.Alloc(4);
    // Each enqueueing call holds the lock only on the shared default stream, so threads interleave.
    auto enqueue_call = [&](auto&& call, const char* what) {
      std::unique_lock<std::mutex> lock(*enqueue, std::defer_lock);
      if (raw == nullptr) lock.lock();
      Check(s.api(), call(), what);
    };
    int32_t value = 0;
    enqueue_call([&] { return s.api().copy_h2d(raw, buf.get(), 0, &value, 4, nullptr); }, "copy_h2d");
    for (int i = 0; i < kLaunchesPerThread; ++i) {
      enqueue_call([&] { return s.LaunchRaw(prog, Grid{}, {BufferArg(buf)}, 0, nullptr, raw); }, "launch");
    }
    enqueue_call([&] { return s.api().stream_sync(s.device(), raw); }, "stream_sync");
    enqueue_call([&] { return s.api().copy_d2h(raw, &value, buf.get(), 0, 4, nullptr); }, "copy_d2h");
    CTS_CHECK(value == kLaunchesPerThread, "the thread's counter is " + std::to_string(value));
    return "";
  } catch (const CaseFailure& f) {
    return f.message;
  } catch (const SkipCase& sk) {
    return "skipped inside a thread: " + sk.reason;
  }
}

void ConcurrentThreads(const Plugin& p) {
  DeviceSession s(p);
  std::string dialect = s.ExecDialect();
  std::mutex enqueue;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { errors[t] = ThreadBody(s, dialect, &enqueue); });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    CTS_CHECK(errors[t].empty(), "thread " + std::to_string(t) + ": " + errors[t]);
  }
}

// Runs add_one once on a fresh buffer and checks the result: "the device still works".
void RunAddOne(const DeviceSession& s, const std::string& dialect) {
  Program prog = s.Compile(dialect, "add_one");
  Buffer buf = s.Alloc(4);
  int32_t v = 41;
  s.Write(buf, 0, &v, 4);
  s.Launch(prog, Grid{}, {BufferArg(buf)});
  s.Sync();
  s.Read(buf, 0, &v, 4);
  CTS_CHECK(v == 42, "add_one gave " + std::to_string(v));
}

// device_close frees what the device still owns: buffers, programs and a pending launch.
void CloseWithLiveObjects(const Plugin& p) {
  std::string dialect;
  {
    DeviceSession s(p);
    dialect = s.ExecDialect();
    Program prog = s.Compile(dialect, "busy");
    Buffer out = s.Alloc(4);
    Buffer extra = s.Alloc(1 << 20);
    Check(s.api(), s.LaunchRaw(prog, Grid{}, {BufferArg(out), I32Arg(1000000)}), "launch(busy)");
    prog.release();  // left to device_close on purpose
    out.release();
    extra.release();
    s.CloseDevice();
  }
  DeviceSession again(p);  // the plugin still works
  RunAddOne(again, dialect);
}

// buffer_free and program_destroy are safe while a launch that uses them is still pending.
void FreeWithPendingWork(const Plugin& p) {
  DeviceSession s(p);
  Program prog = s.Compile(s.ExecDialect(), "busy");
  Buffer out = s.Alloc(4);
  Check(s.api(), s.LaunchRaw(prog, Grid{}, {BufferArg(out), I32Arg(5000000)}), "launch(busy)");
  out.reset();
  prog.reset();
  s.Sync();
  RunAddOne(s, s.ExecDialect());
}

// The last shutdown may tear everything down; a later initialize must bring it all back.
void ReinitAfterShutdown(const Plugin& p) {
  std::string dialect;
  {
    DeviceSession s(p);
    dialect = s.ExecDialect();
    RunAddOne(s, dialect);
  }  // device_close + shutdown: the reference count is zero here
  DeviceSession s(p);
  RunAddOne(s, dialect);
}

}  // namespace

std::vector<Case> Tier4RobustnessCases() {
  return {
      {4, "Robustness.concurrent_threads", ConcurrentThreads},
      {4, "Robustness.close_with_live_objects", CloseWithLiveObjects},
      {4, "Robustness.free_with_pending_work", FreeWithPendingWork},
      {4, "Robustness.reinit_after_shutdown", ReinitAfterShutdown},
  };
}

}  // namespace tg_cts
