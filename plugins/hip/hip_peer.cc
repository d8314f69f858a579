// hip_peer.cc: peer access once per pair, and event-ordered copies between devices.
#include "plugins/hip/hip_peer.h"

#include <mutex>
#include <set>
#include <utility>

#include "plugins/hip/hip_api.h"

namespace tg_hip {
namespace {

// Lets |dst| read |src|'s memory directly where the hardware allows (hipDeviceEnablePeerAccess acts
// for the current device, which the caller has made |dst|). Failing to is no error:
// hipMemcpyPeerAsync then stages through the host. Peer access belongs to the process, not to the
// tg_device, so it is asked for once per pair of ordinals however often devices are reopened.
void EnablePeerAccessOnce(const tg_device* dst, const tg_device* src) {
  static std::mutex mu;
  static auto* asked = new std::set<std::pair<uint32_t, uint32_t>>;
  std::lock_guard<std::mutex> lock(mu);
  if (!asked->insert({dst->ordinal, src->ordinal}).second) return;
  int can = 0;
  if (Hip().hipDeviceCanAccessPeer(&can, int(dst->ordinal), int(src->ordinal)) != hipSuccess || can == 0) return;
  Hip().hipDeviceEnablePeerAccess(int(src->ordinal), 0);  // hipErrorPeerAccessAlreadyEnabled is fine
}

// |waiter|'s stream waits for everything enqueued on |done_on|'s stream so far. Leaves |waiter|
// current.
tg_error* StreamFollows(tg_device* waiter, tg_device* done_on) {
  hipEvent_t event = nullptr;
  if (tg_error* e = MakeCurrent(done_on)) return e;
  if (tg_error* e = CheckHip(Hip().hipEventCreateWithFlags(&event, hipEventDisableTiming), "hipEventCreate")) {
    return e;
  }
  hipError_t r = Hip().hipEventRecord(event, done_on->stream);
  if (r == hipSuccess) r = Hip().hipStreamWaitEvent(waiter->stream, event, 0);
  Hip().hipEventDestroy(event);  // the wait keeps what it needs
  if (tg_error* e = CheckHip(r, "ordering two devices' streams")) return e;
  return MakeCurrent(waiter);
}

}  // namespace

tg_error* CopyBetweenDevices(tg_device* dst, void* to, tg_device* src, const void* from, uint64_t bytes) {
  if (tg_error* e = StreamFollows(dst, src)) return e;  // leaves dst current
  EnablePeerAccessOnce(dst, src);
  hipError_t r = Hip().hipMemcpyPeerAsync(to, int(dst->ordinal), from, int(src->ordinal), bytes, dst->stream);
  if (tg_error* e = CheckHip(r, "copy_d2d: hipMemcpyPeerAsync")) return e;
  if (tg_error* e = StreamFollows(src, dst)) return e;
  return MakeCurrent(dst);
}

}  // namespace tg_hip
