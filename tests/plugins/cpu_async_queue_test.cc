// cpu_async_queue_test.cc: the CPU plugin's devices as in-order queues run by their own threads
// (plugins/cpu/device_queue.h). TG_CPU_DEVICES=2 (set by the BUILD target) turns queueing on. What the
// ABI promises of an asynchronous launch: copies without an event see the work queued before them,
// launches run in order, a kernel's failure surfaces at event_wait and stream_sync, and frees and
// destroys are safe while work that uses them is still queued.
//
// A "gate" kernel on one device spins until a kernel on the other device opens it: work is then
// provably pending (no sleeps, no timing), and that the gate opens at all shows the two devices run
// side by side. Both kernels touch one flag buffer, which only a unified-memory plugin allows.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/runtime/test_kernels.h"

namespace {

using tg::testing::kCPrelude;

// gate: spins (yielding) until buffers[0]'s int32 is nonzero. open_gate: sets it. Atomics, so the
// handoff is no data race for ThreadSanitizer (--config=tsan compiles kernels with it too).
constexpr char kGateKernels[] = R"C(
#include <sched.h>
int32_t gate(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  (void)w;
  int32_t* flag = (int32_t*)d->buffers[0];
  while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) sched_yield();
  return 0;
}
int32_t open_gate(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  (void)w;
  __atomic_store_n((int32_t*)d->buffers[0], 1, __ATOMIC_RELEASE);
  return 0;
}
)C";

class CpuAsyncQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api_ = tg::testing::LoadPluginApi("./plugins/cpu/libtg_cpu.so");
    ASSERT_NE(api_, nullptr);
    ASSERT_EQ(api_->initialize(nullptr), nullptr);
    uint32_t n = 0;
    Ok(api_->device_count(&n));
    ASSERT_EQ(n, 2u) << "the BUILD target sets TG_CPU_DEVICES=2";
    Ok(api_->device_open(0, &dev0_));
    Ok(api_->device_open(1, &dev1_));
    ASSERT_NE(dev0_, nullptr);
    ASSERT_NE(dev1_, nullptr);
  }
  void TearDown() override {
    if (dev0_ != nullptr) api_->device_close(dev0_);
    if (dev1_ != nullptr) api_->device_close(dev1_);
    if (api_ != nullptr) api_->shutdown();
  }

  void Ok(tg_error* e) const { tg::testing::ErrorChecker(api_).Ok(e); }
  std::string Err(tg_error* e, tg_code code) const { return tg::testing::ErrorChecker(api_).Err(e, code); }

  tg_program* Compile(tg_device* device, const char* body, const char* entry) {
    std::string src = std::string(kCPrelude) + body;
    tg_compile_args a{};
    a.struct_size = sizeof a;
    a.device = device;
    a.dialect = "c";
    a.source = src.data();
    a.source_len = src.size();
    a.entry = entry;
    tg_program* p = nullptr;
    Ok(api_->program_compile(&a, &p));
    EXPECT_NE(p, nullptr) << entry;
    return p;
  }
  tg_buffer* Upload(tg_device* device, const std::vector<float>& v) {
    tg_buffer* b = nullptr;
    Ok(api_->buffer_alloc(device, v.size() * 4, 0, &b));
    Ok(api_->copy_h2d(nullptr, b, 0, v.data(), v.size() * 4, nullptr));
    return b;
  }
  std::vector<float> Download(tg_buffer* b, size_t n) {
    std::vector<float> v(n, -1.f);
    Ok(api_->copy_d2h(nullptr, v.data(), b, 0, n * 4, nullptr));
    return v;
  }
  void VectorAdd(tg_program* vadd, tg_buffer* out, tg_buffer* a, tg_buffer* b, int n,
                 tg_event** done = nullptr) {
    tg::testing::ThreeBufferLaunch launch(vadd, out, a, b, n);
    launch.la.out_done = done;
    Ok(api_->launch(&launch.la));
  }
  // Launches |program| (gate or open_gate) over one work item with |flag| as its buffer.
  void LaunchOnFlag(tg_program* program, tg_buffer* flag, tg_event** done = nullptr) {
    tg_arg arg{};
    arg.kind = TG_ARG_BUFFER;
    arg.buffer = flag;
    tg_launch_args la{};
    la.struct_size = sizeof la;
    la.program = program;
    la.num_groups[0] = la.num_groups[1] = la.num_groups[2] = 1;
    la.group_size[0] = la.group_size[1] = la.group_size[2] = 1;
    la.args = &arg;
    la.num_args = 1;
    la.out_done = done;
    Ok(api_->launch(&la));
  }
  // A closed gate queued on dev1 (its flag lives on dev1); Open() releases it from dev0.
  void CloseGateOnDev1() {
    gate_ = Compile(dev1_, kGateKernels, "gate");
    opener_ = Compile(dev0_, kGateKernels, "open_gate");
    int32_t zero = 0;
    Ok(api_->buffer_alloc(dev1_, sizeof zero, 0, &flag_));
    Ok(api_->copy_h2d(nullptr, flag_, 0, &zero, sizeof zero, nullptr));
    LaunchOnFlag(gate_, flag_, &gate_done_);
  }
  void OpenGate() {
    LaunchOnFlag(opener_, flag_);
    Ok(api_->stream_sync(dev0_, nullptr));  // returns while dev1 may still be behind its gate
  }
  void FreeGate() {
    api_->event_destroy(gate_done_);
    api_->buffer_free(flag_);
    api_->program_destroy(gate_);
    api_->program_destroy(opener_);
  }

  const tg_plugin_api* api_ = nullptr;
  tg_device* dev0_ = nullptr;
  tg_device* dev1_ = nullptr;
  tg_program *gate_ = nullptr, *opener_ = nullptr;
  tg_buffer* flag_ = nullptr;
  tg_event* gate_done_ = nullptr;
};

std::vector<float> Iota(int n, float scale) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = scale * float(i % 1000);
  return v;
}

TEST_F(CpuAsyncQueueTest, CopyWithoutEventSeesTheLaunchQueuedBeforeIt) {
  const int n = 1 << 20;  // enough work that an unordered copy would read zeros or poison
  tg_program* vadd = Compile(dev0_, tg::testing::kVectorAdd, "vadd");
  tg_buffer* a = Upload(dev0_, Iota(n, 1.f));
  tg_buffer* b = Upload(dev0_, Iota(n, 2.f));
  tg_buffer* out = Upload(dev0_, std::vector<float>(n, 0.f));
  VectorAdd(vadd, out, a, b, n);
  std::vector<float> got = Download(out, n);  // no stream_sync: the copy itself must wait
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], 3.f * float(i % 1000)) << "at " << i;
  for (tg_buffer* buf : {a, b, out}) api_->buffer_free(buf);
  api_->program_destroy(vadd);
}

TEST_F(CpuAsyncQueueTest, LaunchesAndUploadsRunInTheOrderTheyWereEnqueued) {
  const int n = 4096;
  tg_program* vadd = Compile(dev1_, tg::testing::kVectorAdd, "vadd");
  tg_buffer* a = Upload(dev1_, Iota(n, 1.f));
  tg_buffer* b = Upload(dev1_, Iota(n, 2.f));
  tg_buffer* t = Upload(dev1_, std::vector<float>(n, 0.f));
  tg_buffer* u = Upload(dev1_, std::vector<float>(n, 0.f));
  CloseGateOnDev1();  // everything below queues behind the gate
  VectorAdd(vadd, t, a, b, n);  // t = a + b = 3x
  VectorAdd(vadd, u, t, b, n);  // u = t + b = 5x         (reads what the first launch wrote)
  VectorAdd(vadd, t, u, a, n);  // t = u + a = 6x         (overwrites what the second one read)
  uint32_t done = 1;
  Ok(api_->event_query(gate_done_, &done));
  EXPECT_EQ(done, 0u);  // the gate is closed, so nothing behind it ran
  OpenGate();
  // An upload without an event waits for the launches before it, which still read |a|.
  std::vector<float> zeros(n, 0.f);
  Ok(api_->copy_h2d(nullptr, a, 0, zeros.data(), n * 4, nullptr));
  std::vector<float> got_t = Download(t, n), got_u = Download(u, n);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(got_u[i], 5.f * float(i % 1000)) << "at " << i;
    ASSERT_EQ(got_t[i], 6.f * float(i % 1000)) << "at " << i;
  }
  Ok(api_->stream_sync(dev1_, nullptr));
  FreeGate();
  for (tg_buffer* buf : {a, b, t, u}) api_->buffer_free(buf);
  api_->program_destroy(vadd);
}

TEST_F(CpuAsyncQueueTest, EventsCompleteWhenTheirWorkHasRun) {
  CloseGateOnDev1();
  uint32_t done = 1;
  Ok(api_->event_query(gate_done_, &done));
  EXPECT_EQ(done, 0u);
  std::string msg = Err(api_->event_wait(gate_done_, 1000000), TG_CODE_DEADLINE_EXCEEDED);
  EXPECT_NE(msg.find("not done"), std::string::npos) << msg;
  OpenGate();  // dev0 runs while dev1 is still blocked: the devices do not share one queue
  Ok(api_->event_wait(gate_done_, UINT64_MAX));
  Ok(api_->event_query(gate_done_, &done));
  EXPECT_EQ(done, 1u);
  Ok(api_->stream_sync(dev1_, nullptr));
  FreeGate();
}

TEST_F(CpuAsyncQueueTest, KernelFailureSurfacesAtEventWaitAndStreamSyncNotAtLaunch) {
  tg_program* fails = Compile(dev1_, tg::testing::kFailing, "fails");
  tg_program* vadd = Compile(dev1_, tg::testing::kVectorAdd, "vadd");
  const int n = 256;
  tg_buffer* a = Upload(dev1_, Iota(n, 1.f));
  tg_buffer* out = Upload(dev1_, std::vector<float>(n, 0.f));
  CloseGateOnDev1();
  tg::testing::ThreeBufferLaunch failing(fails, out, a, a, n);  // 8 groups; group 3 returns 7
  tg_event* failed = nullptr;
  failing.la.out_done = &failed;
  Ok(api_->launch(&failing.la));  // enqueued: the kernel has not run, so no error yet
  tg_event* later = nullptr;
  VectorAdd(vadd, out, a, a, n, &later);  // work after a failure still runs
  OpenGate();
  std::string msg = Err(api_->event_wait(failed, UINT64_MAX), TG_CODE_INTERNAL);
  EXPECT_NE(msg.find("'fails' returned 7"), std::string::npos) << msg;
  Ok(api_->event_wait(later, UINT64_MAX));  // its own event carries only its own outcome
  msg = Err(api_->stream_sync(dev1_, nullptr), TG_CODE_INTERNAL);
  EXPECT_NE(msg.find("returned 7"), std::string::npos) << msg;
  Ok(api_->stream_sync(dev1_, nullptr));  // reported once
  std::vector<float> got = Download(out, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], 2.f * float(i)) << "at " << i;
  for (tg_event* e : {failed, later}) api_->event_destroy(e);
  FreeGate();
  for (tg_buffer* buf : {a, out}) api_->buffer_free(buf);
  api_->program_destroy(fails);
  api_->program_destroy(vadd);
}

TEST_F(CpuAsyncQueueTest, FreeDestroyAndEventDestroyAreSafeWithPendingWork) {
  const int n = 4096;
  tg_program* vadd = Compile(dev1_, tg::testing::kVectorAdd, "vadd");
  tg_buffer* a = Upload(dev1_, Iota(n, 1.f));
  tg_buffer* b = Upload(dev1_, Iota(n, 2.f));
  tg_buffer* keep = Upload(dev1_, std::vector<float>(n, 0.f));
  CloseGateOnDev1();
  tg_event* done = nullptr;
  VectorAdd(vadd, keep, a, b, n, &done);
  // All of these are still used by the queued launch: the plugin must defer them (ASan would see
  // a use after free otherwise).
  api_->event_destroy(done);
  api_->buffer_free(a);
  api_->buffer_free(b);
  api_->program_destroy(vadd);
  OpenGate();
  std::vector<float> got = Download(keep, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], 3.f * float(i % 1000)) << "at " << i;
  Ok(api_->stream_sync(dev1_, nullptr));
  FreeGate();
  api_->buffer_free(keep);
}

TEST_F(CpuAsyncQueueTest, CopiesWithAnEventAreQueuedAndKeepTheirOrder) {
  const int n = 1024;
  std::vector<float> in = Iota(n, 4.f), out(n, -1.f);
  tg_buffer* b = nullptr;
  Ok(api_->buffer_alloc(dev1_, n * 4, 0, &b));
  CloseGateOnDev1();
  tg_event *up = nullptr, *down = nullptr;
  Ok(api_->copy_h2d(nullptr, b, 0, in.data(), n * 4, &up));
  Ok(api_->copy_d2h(nullptr, out.data(), b, 0, n * 4, &down));
  uint32_t finished = 1;
  Ok(api_->event_query(down, &finished));
  EXPECT_EQ(finished, 0u);  // behind the gate
  OpenGate();
  Ok(api_->event_wait(down, UINT64_MAX));
  Ok(api_->event_query(up, &finished));
  EXPECT_EQ(finished, 1u);  // queued before |down|, so done before it
  EXPECT_EQ(out, in);
  for (tg_event* e : {up, down}) api_->event_destroy(e);
  FreeGate();
  api_->buffer_free(b);
}

// The gate's flag opened by the test thread through the buffer's host address (tg.native_handles),
// for work that must stay closed while dev0's queue is itself waiting.
void OpenGateFromHost(const tg_plugin_api* api, tg_buffer* flag) {
  const tg_ext* ext = tg::testing::FindExtension(api, TG_NATIVE_HANDLES_NAME);
  ASSERT_NE(ext, nullptr);
  uint64_t address = 0;
  const char* kind = nullptr;
  tg::testing::ErrorChecker(api).Ok(
      reinterpret_cast<const tg_native_handles_ext*>(ext)->buffer_native(flag, &address, &kind));
  ASSERT_STREQ(kind, "host");
  __atomic_store_n(reinterpret_cast<int32_t*>(address), 1, __ATOMIC_RELEASE);
}

// copy_d2d from dev1 (whose kernel is behind the gate) to dev0 returns at once: the copy waits on
// dev0's queue for dev1's work, never on the calling thread (which would hang here, since only this
// thread opens the gate). dev1's later work waits for the copy to have read its buffer.
TEST_F(CpuAsyncQueueTest, CopyBetweenDevicesWaitsOnTheQueuesNotTheCaller) {
  const int n = 4096;
  tg_program* vadd = Compile(dev1_, tg::testing::kVectorAdd, "vadd");
  tg_buffer* a = Upload(dev1_, Iota(n, 1.f));
  tg_buffer* on_dev1 = nullptr;
  tg_buffer* on_dev0 = nullptr;
  Ok(api_->buffer_alloc(dev1_, n * 4, 0, &on_dev1));
  Ok(api_->buffer_alloc(dev0_, n * 4, 0, &on_dev0));
  CloseGateOnDev1();
  VectorAdd(vadd, on_dev1, a, a, n);  // 2a, behind the gate
  tg_event* copied = nullptr;
  Ok(api_->copy_d2d(nullptr, on_dev0, 0, on_dev1, 0, n * 4, &copied));
  VectorAdd(vadd, on_dev1, on_dev1, on_dev1, n);  // 4a: must not reach the copy
  uint32_t done = 1;
  Ok(api_->event_query(copied, &done));
  EXPECT_EQ(done, 0u);  // dev1's kernel has not run, so neither has the copy
  OpenGateFromHost(api_, flag_);
  Ok(api_->event_wait(copied, UINT64_MAX));
  std::vector<float> got = Download(on_dev0, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], 2.f * float(i % 1000)) << "at " << i;
  Ok(api_->stream_sync(dev1_, nullptr));
  got = Download(on_dev1, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], 4.f * float(i % 1000)) << "at " << i;
  api_->event_destroy(copied);
  FreeGate();
  for (tg_buffer* b : {a, on_dev1, on_dev0}) api_->buffer_free(b);
  api_->program_destroy(vadd);
}

// event_record on dev1 completes with the work queued before it; device_wait_event makes dev0's
// queue (not the caller) wait for it, so an upload queued on dev0 after the wait lands after dev1's
// gate opens.
TEST_F(CpuAsyncQueueTest, DeviceWaitEventOrdersOneQueueBehindAnother) {
  ASSERT_TRUE(TG_HAS(api_, tg_plugin_api, device_wait_event));
  ASSERT_NE(api_->event_record, nullptr);
  ASSERT_NE(api_->device_wait_event, nullptr);
  const int n = 256;
  std::vector<float> in = Iota(n, 3.f);
  tg_buffer* on_dev0 = nullptr;
  Ok(api_->buffer_alloc(dev0_, n * 4, 0, &on_dev0));
  CloseGateOnDev1();
  tg_event* dev1_so_far = nullptr;
  Ok(api_->event_record(dev1_, nullptr, &dev1_so_far));
  ASSERT_NE(dev1_so_far, nullptr);
  Ok(api_->device_wait_event(dev0_, nullptr, dev1_so_far));
  api_->event_destroy(dev1_so_far);  // the wait holds what it needs
  tg_event* uploaded = nullptr;
  Ok(api_->copy_h2d(nullptr, on_dev0, 0, in.data(), n * 4, &uploaded));
  uint32_t done = 1;
  Ok(api_->event_query(uploaded, &done));
  EXPECT_EQ(done, 0u);  // dev0 waits behind dev1's gate
  OpenGateFromHost(api_, flag_);
  Ok(api_->event_wait(uploaded, UINT64_MAX));
  EXPECT_EQ(Download(on_dev0, n), in);
  tg_event* idle = nullptr;
  Ok(api_->stream_sync(dev1_, nullptr));
  Ok(api_->event_record(dev1_, nullptr, &idle));  // nothing pending: complete at once
  Ok(api_->event_query(idle, &done));
  EXPECT_EQ(done, 1u);
  for (tg_event* e : {uploaded, idle}) api_->event_destroy(e);
  FreeGate();
  api_->buffer_free(on_dev0);
}

TEST_F(CpuAsyncQueueTest, DeviceCloseRunsWhatIsStillQueued) {
  const int n = 4096;
  tg_program* vadd = Compile(dev1_, tg::testing::kVectorAdd, "vadd");
  tg_buffer* a = Upload(dev1_, Iota(n, 1.f));
  std::vector<float> out(n, -1.f);
  CloseGateOnDev1();
  tg_buffer* t = nullptr;
  Ok(api_->buffer_alloc(dev1_, n * 4, 0, &t));
  VectorAdd(vadd, t, a, a, n);
  tg_event* copied = nullptr;
  Ok(api_->copy_d2h(nullptr, out.data(), t, 0, n * 4, &copied));
  api_->buffer_free(a);  // deferred behind the gate, like the launch that reads it
  api_->buffer_free(t);
  api_->program_destroy(vadd);
  OpenGate();
  FreeGate();
  api_->device_close(dev1_);  // waits for the gate, the launch, the copy and the deferred frees
  dev1_ = nullptr;
  Ok(api_->event_wait(copied, UINT64_MAX));  // an event outlives its device's queue
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.f * float(i % 1000)) << "at " << i;
  api_->event_destroy(copied);
}

}  // namespace
