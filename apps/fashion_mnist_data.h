// Fashion-MNIST as tensors: the four IDX .gz files Debian's dataset-fashion-mnist installs, validated
// and uploaded. Data in for apps/fashion_mnist.cc (README.md), on top of apps/idx_reader.h.
#ifndef TG_APPS_FASHION_MNIST_DATA_H_
#define TG_APPS_FASHION_MNIST_DATA_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/tg.h"

namespace tg::apps {

inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Host-side, so the training loop can shuffle and cut batches without kernels: |pixels| holds
// size * 28 * 28 floats in [0, 1] (row-major images), |labels| size ints in [0, 10).
struct MnistSplit {
  int64_t size = 0;
  std::vector<float> pixels;
  std::vector<int32_t> labels;

  // The images (k, 1, 28, 28) and labels (k) at |indices|, as tensors on |device|.
  std::pair<Tensor, Tensor> Batch(const std::vector<int64_t>& indices, std::string_view device = "") const;
};
struct MnistDataset {
  MnistSplit train, test;
};

// Reads {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz from |dir|.
// tg::Error naming the missing file and the Debian package (dataset-fashion-mnist) when one is absent,
// and naming the file and fault when one is malformed (wrong shape, count mismatch, label >= 10).
MnistDataset LoadFashionMnist(const std::string& dir = kFashionMnistDir);

}  // namespace tg::apps

#endif  // TG_APPS_FASHION_MNIST_DATA_H_
