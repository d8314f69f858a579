// tg::nn, all of it: #include "frontend/nn/nn.h", Bazel target //frontend/nn. Layers, parameters(),
// tg::Training, optimizers, schedules, state dicts, safetensors and GGUF files (with their ggml
// dequantization), on top of tg::Tensor (docs/architecture.md).
#ifndef TG_FRONTEND_NN_NN_H_
#define TG_FRONTEND_NN_NN_H_

#include "frontend/nn/conv.h"
#include "frontend/nn/dropout.h"
#include "frontend/nn/embedding.h"
#include "frontend/nn/gguf.h"
#include "frontend/nn/gru.h"
#include "frontend/nn/linear.h"
#include "frontend/nn/lr_scheduler.h"
#include "frontend/nn/lstm.h"
#include "frontend/nn/lstm_layer.h"
#include "frontend/nn/module.h"
#include "frontend/nn/norm.h"
#include "frontend/nn/optim.h"
#include "frontend/nn/quant.h"
#include "frontend/nn/recurrent.h"
#include "frontend/nn/rnn.h"
#include "frontend/nn/safetensors.h"
#include "frontend/nn/sequential.h"
#include "frontend/nn/state.h"
#include "frontend/nn/training.h"
#include "frontend/tg.h"

#endif  // TG_FRONTEND_NN_NN_H_
