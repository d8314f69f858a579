// Conversions between ONNX's TensorProto / data-type codes and tg::Tensor / tg::DType. Used when a model
// is loaded (initializers, Constant attributes) and by tools that read test data (.pb files).
#ifndef TG_FRONTEND_ONNX_ONNX_TENSOR_H_
#define TG_FRONTEND_ONNX_ONNX_TENSOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/onnx/graph.h"
#include "frontend/tensor.h"

namespace onnx {
class TensorProto;
}

namespace tg::onnx {

// The tg dtype for an ONNX TensorProto.DataType code; tg::Error naming the type for ones we lack
// (string, complex, float8, int4).
DType DTypeFromOnnx(int64_t code);
std::string OnnxTypeName(int64_t code);  // "FLOAT", "STRING", ... for messages

// The tensor |proto| holds, on |device|. Data comes from raw_data, the typed fields, or (data_location
// EXTERNAL) a file under |base_dir|. Throws tg::Error when the data size does not match the dims.
// When |host| is given and the tensor is small (integers up to kHostInts values, float32/float64 up to
// kHostFloats), its values are also stored there; otherwise |host| is left empty.
inline constexpr int64_t kHostInts = 4096;
inline constexpr int64_t kHostFloats = 64;
Tensor TensorFromProto(const ::onnx::TensorProto& proto, const std::string& base_dir, std::string_view device,
                       HostValues* host = nullptr);

}  // namespace tg::onnx

#endif  // TG_FRONTEND_ONNX_ONNX_TENSOR_H_
