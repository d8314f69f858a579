// The weights of a Hugging Face model folder: model.safetensors, or the shards that
// model.safetensors.index.json maps tensor names to. Loaded lazily (frontend/nn/safetensors.h): each
// file is memory-mapped and a tensor's bytes are read when it is first realized. The tensors are on the CPU,
// which has every dtype (apps/llm_model.h copies them to the model's device in their dtype, or as float32
// where the device lacks it).
#ifndef TG_APPS_LLM_CHECKPOINT_H_
#define TG_APPS_LLM_CHECKPOINT_H_

#include <string>

#include "frontend/nn/state.h"

namespace tg::apps {

// Every tensor of |folder|'s checkpoint. tg::Error when the folder has neither file, when the index is
// not {"weight_map": {name: file}}, names a file that is missing, or a shard lacks a tensor it maps to it.
nn::StateDict LoadLlmCheckpoint(const std::string& folder);

}  // namespace tg::apps

#endif  // TG_APPS_LLM_CHECKPOINT_H_
