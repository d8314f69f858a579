// Host effects of building a graph: reading tensor data back to the host, and drawing random numbers.
// A build that had neither computed a graph that depends only on its inputs' shapes, dtypes and
// devices, so a caller may keep it and rebuild it for new inputs by swapping their buffers in
// (frontend/onnx/trace_cache.h does, for ONNX models).
#ifndef TG_FRONTEND_HOST_EFFECTS_H_
#define TG_FRONTEND_HOST_EFFECTS_H_

#include <cstdint>

namespace tg {

// How many host effects this thread has had so far; compare the count before and after a build.
uint64_t HostEffectsOnThisThread();
// Records one: every read of tensor data (to_vector, item, to_bytes) and every random draw calls it.
void NoteHostEffect();

}  // namespace tg

#endif  // TG_FRONTEND_HOST_EFFECTS_H_
