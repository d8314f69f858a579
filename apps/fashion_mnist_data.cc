// Fashion-MNIST loading (apps/fashion_mnist_data.h): file checks, then IDX arrays to tensors.
#include "apps/fashion_mnist_data.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "apps/idx_reader.h"

namespace tg::apps {
namespace {

std::string Describe(const IdxArray& a) {
  std::string s = "(";
  for (size_t i = 0; i < a.dims.size(); ++i) s += (i ? ", " : "") + std::to_string(a.dims[i]);
  return s + ")";
}

MnistSplit LoadSplit(const std::string& dir, const std::string& prefix) {
  std::string images_path = dir + "/" + prefix + "-images-idx3-ubyte.gz";
  std::string labels_path = dir + "/" + prefix + "-labels-idx1-ubyte.gz";
  for (const std::string& path : {images_path, labels_path})
    if (!std::filesystem::exists(path))
      throw Error("Fashion-MNIST: " + path + " is missing. Install Debian's dataset-fashion-mnist package "
                  "(sudo apt-get install dataset-fashion-mnist, or tools/setup.sh), or pass --data DIR");
  IdxArray images = LoadIdx(images_path), labels = LoadIdx(labels_path);
  if (images.type != IdxType::kUint8 || images.dims.size() != 3 || images.dims[1] != 28 || images.dims[2] != 28)
    throw Error(images_path + ": expected uint8 images (n, 28, 28), got " + Describe(images));
  if (labels.type != IdxType::kUint8 || labels.dims.size() != 1 || labels.dims[0] != images.dims[0])
    throw Error(labels_path + ": expected " + std::to_string(images.dims[0]) + " uint8 labels, got " +
                Describe(labels));
  MnistSplit out;
  out.size = images.dims[0];
  out.pixels.resize(images.data.size());
  for (size_t i = 0; i < out.pixels.size(); ++i) out.pixels[i] = images.data[i] / 255.0f;
  out.labels.resize(labels.data.size());
  for (size_t i = 0; i < out.labels.size(); ++i) {
    if (labels.data[i] >= 10)
      throw Error(labels_path + ": label " + std::to_string(labels.data[i]) + " at " + std::to_string(i) +
                  " is not a class in [0, 10)");
    out.labels[i] = labels.data[i];
  }
  return out;
}

}  // namespace

std::pair<Tensor, Tensor> MnistSplit::Batch(const std::vector<int64_t>& indices, std::string_view device) const {
  constexpr size_t kPixels = 28 * 28;
  std::vector<float> x(indices.size() * kPixels);
  std::vector<int32_t> y(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    const float* src = pixels.data() + indices[i] * kPixels;
    std::copy(src, src + kPixels, x.begin() + i * kPixels);
    y[i] = labels[indices[i]];
  }
  int64_t k = static_cast<int64_t>(indices.size());
  return {Tensor::from_vector(x, Shape{k, 1, 28, 28}, device), Tensor::from_vector(y, Shape{k}, device)};
}

MnistDataset LoadFashionMnist(const std::string& dir) { return {LoadSplit(dir, "train"), LoadSplit(dir, "t10k")}; }

}  // namespace tg::apps
