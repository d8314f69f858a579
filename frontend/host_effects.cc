#include "frontend/host_effects.h"

namespace tg {
namespace {

// Per thread: a build runs on one thread, and another thread's reads say nothing about it.
thread_local uint64_t host_effects = 0;

}  // namespace

uint64_t HostEffectsOnThisThread() { return host_effects; }

void NoteHostEffect() { ++host_effects; }

}  // namespace tg
