// tg::dist collectives: allreduce and broadcast of tensors between the ranks of
// init()'s world, as PyTorch's torch.distributed.all_reduce / broadcast. Tensors go as ONE flat buffer per
// dtype (so a step's gradients are one message, not one per parameter), reduced, and written back: over
// MPI through host memory (MPI_Iallreduce / MPI_Ibcast), or over NCCL on the device's memory when
// TG_DIST_BACKEND (auto, mpi, nccl; backend_choice.h) picks it. init().backend says which.
// In a world of one rank every call returns at once and changes nothing (an average of one is itself).
//
// Every rank must make the same calls with tensors of the same shapes and dtypes in the same order. A
// collective that waits longer than TG_DIST_TIMEOUT seconds (default 300) for the other ranks is a
// tg::Error, so a rank that dies or hangs never leaves the others waiting forever.
#ifndef TG_FRONTEND_DIST_COLLECTIVES_H_
#define TG_FRONTEND_DIST_COLLECTIVES_H_

#include <cstdint>
#include <vector>

#include "frontend/tensor.h"

namespace tg::dist {

enum class ReduceOp { kSum, kAverage, kMax, kMin };

// Host buffers. |count| elements of |dtype| at |data|, reduced in place on every rank. Allowed dtypes:
// float32, float64, int8/16/32/64, uint8/16/32/64 (kAverage: float32 and float64 only). tg::Error
// otherwise, and on an MPI failure or timeout.
void allreduce_host(void* data, int64_t count, DType dtype, ReduceOp op = ReduceOp::kSum);
// |bytes| bytes at |data| from rank |root| to every rank.
void broadcast_host(void* data, int64_t bytes, int root = 0);

// Tensors, in place (Tensor::assign: every handle sees the result; requires_grad and grad() are kept).
// One message per distinct dtype among |tensors|. Over NCCL the allowed dtypes are NCCL's (int8, uint8,
// int32, uint32, int64, uint64, float16, bfloat16, float32, float64) and the tensors must be on one device.
void allreduce(const std::vector<Tensor>& tensors, ReduceOp op = ReduceOp::kSum);
// Every rank's |tensors| take rank |root|'s values (any dtype; one message). Used to start training
// from rank 0's parameters.
void broadcast(const std::vector<Tensor>& tensors, int root = 0);

// Checks that every rank holds bitwise the same values in |tensors| (a 64-bit hash of their bytes is
// gathered from every rank). tg::Error naming the ranks that differ from rank 0; a no-op on one rank.
void check_replicas(const std::vector<Tensor>& tensors, const char* what = "parameters");

}  // namespace tg::dist

#endif  // TG_FRONTEND_DIST_COLLECTIVES_H_
