// cuda_peer.cc: peer access once per pair, and event-ordered copies between devices.
#include "plugins/cuda/cuda_peer.h"

#include <mutex>
#include <set>
#include <utility>

#include "plugins/cuda/cuda_api.h"
#include "plugins/cuda/scoped_context.h"

namespace tg_cuda {
namespace {

// Lets |dst|'s context read |src|'s memory directly where the hardware allows. Failing to is no
// error: cuMemcpyPeerAsync then stages through the host.
void EnablePeerAccessOnce(tg_device* dst, tg_device* src) {
  static std::mutex mu;
  static std::set<std::pair<CUdevice, CUdevice>>* asked = new std::set<std::pair<CUdevice, CUdevice>>;
  std::lock_guard<std::mutex> lock(mu);
  if (!asked->insert({dst->device, src->device}).second) return;
  int can = 0;
  if (Cu().cuDeviceCanAccessPeer(&can, dst->device, src->device) != CUDA_SUCCESS || can == 0) return;
  Cu().cuCtxEnablePeerAccess(src->context, 0);  // the current context (dst's) gains access
}

// |waiter|'s stream waits for everything enqueued on |done_on|'s stream so far.
tg_error* StreamFollows(tg_device* waiter, tg_device* done_on) {
  CUevent event = nullptr;
  ScopedContext current;  // the event is |done_on|'s
  if (tg_error* e = current.Enter(done_on)) return e;
  if (tg_error* e = CheckCu(Cu().cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate")) return e;
  CUresult r = Cu().cuEventRecord(event, done_on->stream);
  if (r == CUDA_SUCCESS) r = Cu().cuStreamWaitEvent(waiter->stream, event, 0);
  Cu().cuEventDestroy_v2(event);  // the wait keeps what it needs
  return CheckCu(r, "ordering two devices' streams");
}

}  // namespace

tg_error* CopyBetweenDevices(tg_device* dst, CUdeviceptr to, tg_device* src, CUdeviceptr from, uint64_t bytes) {
  if (tg_error* e = StreamFollows(dst, src)) return e;
  EnablePeerAccessOnce(dst, src);
  CUresult r = Cu().cuMemcpyPeerAsync(to, dst->context, from, src->context, bytes, dst->stream);
  if (tg_error* e = CheckCu(r, "copy_d2d: cuMemcpyPeerAsync")) return e;
  return StreamFollows(src, dst);
}

}  // namespace tg_cuda
