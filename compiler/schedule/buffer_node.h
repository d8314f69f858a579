// BUFFER nodes: the leaves of the tensor graph that own device memory (a runtime::Buffer).
// Created by the front end for data it uploads and by the scheduler for every kernel output.
#ifndef TG_COMPILER_SCHEDULE_BUFFER_NODE_H_
#define TG_COMPILER_SCHEDULE_BUFFER_NODE_H_

#include <cstdint>
#include <string>

#include "ir/uop.h"
#include "runtime/buffer.h"

namespace tg::compiler {

// A BUFFER node of |numel| elements of |dtype| on |device| (a canonical device name). The device
// memory is allocated on first use. Throws tg::Error when the device does not exist.
UOpRef NewBufferNode(const std::string& device, DType dtype, int64_t numel);
// The same on a device already found (a cached schedule resolves its outputs' devices once).
UOpRef NewBufferNode(runtime::Device& device, DType dtype, int64_t numel);

// A BUFFER node of |numel| elements whose memory is |storage| (a runtime buffer at least that
// big, shared with other nodes whose lifetimes do not overlap: compiler/schedule/memory_planner).
UOpRef NewBufferNodeSharing(const std::string& device, DType dtype, int64_t numel, std::shared_ptr<void> storage);

// The runtime buffer a BUFFER node owns; nullptr for an empty (0-element) buffer.
runtime::Buffer* RuntimeBuffer(const UOpRef& buffer_node);

// The BUFFER under |view| when |view| is a buffer seen whole and in order (BUFFER, or RESHAPE /
// CONTIGUOUS chains over one), else nullptr. Such a node needs no kernel to be realized.
UOpRef BufferOfView(const UOpRef& view);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_BUFFER_NODE_H_
