// hip_peer.h: copies between two of the plugin's GPUs. HIP names devices by ordinal (hipSetDevice)
// rather than by context, so such a copy is hipMemcpyPeerAsync between ordinals, direct over
// xGMI/PCIe once peer access is on (asked for once per ordered pair where hipDeviceCanAccessPeer
// allows; otherwise the runtime stages through host memory), and ordered on the devices' streams with
// events, never by the host waiting.
#ifndef TG_PLUGINS_HIP_HIP_PEER_H_
#define TG_PLUGINS_HIP_HIP_PEER_H_

#include <cstdint>

#include "plugins/hip/hip_device.h"

namespace tg_hip {

// Enqueues |bytes| from |from| (memory of |src|) to |to| (memory of |dst|) on |dst|'s stream after
// the work already on |src|'s stream, and makes |src|'s later work wait for the copy (it may overwrite
// or free the source). Leaves |dst| current. The caller has checked the ranges.
tg_error* CopyBetweenDevices(tg_device* dst, void* to, tg_device* src, const void* from, uint64_t bytes);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIP_PEER_H_
