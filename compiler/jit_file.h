// JitFile: a captured tg::Jit as bytes (docs/saved_jit.md): its devices, kernel binaries, launch list,
// buffer plan with the initial contents of its state, and its input/output signature. This file
// only encodes and decodes; compiler/saved_jit.h makes one from a capture and runs one.
#ifndef TG_COMPILER_JIT_FILE_H_
#define TG_COMPILER_JIT_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/uop.h"
#include "runtime/launch_args.h"

namespace tg::compiler {

struct JitFile {
  // Bumped whenever the layout changes; a file of another version is refused, never guessed at.
  static constexpr uint32_t kFormatVersion = 1;

  // The plugin ABI the kernels were compiled under (TG_ABI_MAJOR / TG_ABI_MINOR of the writer).
  uint32_t abi_major = 0, abi_minor = 0;

  // A device the Jit runs on, as the writer saw it. The loader needs a device of that name, of that
  // plugin, whose compile fingerprint (the one the disk cache keys binaries by) is the same.
  struct Device {
    std::string name, plugin, arch, fingerprint;
  };
  struct Kernel {
    uint32_t device = 0;  // index into devices
    std::string name, entry, format, binary;
    runtime::LaunchDims dims;
  };
  // A runtime buffer of the plan. |initial| holds the bytes it starts with: set for state (weights,
  // constants: read before the Jit writes them), empty for inputs and scratch.
  struct Buffer {
    uint32_t device = 0;
    uint64_t nbytes = 0;
    std::string dtype;  // of the first node seen on it; sizes are in bytes
    bool has_initial = false;
    std::string initial;
  };
  // A kernel launch (kernel index, its buffers in parameter order) or a copy (buffers {dst, src},
  // |copy_bytes| of them), in the order the capture ran them.
  struct Launch {
    bool is_copy = false;
    uint32_t kernel = 0;
    std::vector<uint32_t> buffers;
    uint64_t copy_bytes = 0;
  };
  struct Tensor {  // one input or output of the jitted function: a whole buffer seen as |shape|
    Shape shape;
    std::string dtype;
    uint32_t buffer = 0;
    std::string name;  // optional (an ONNX model's value name, for tools); may be empty
  };

  std::vector<Device> devices;
  std::vector<Kernel> kernels;
  std::vector<Buffer> buffers;
  std::vector<Launch> launches;
  std::vector<Tensor> inputs, outputs;
};

// The file's bytes: magic, format version, payload length, little-endian payload, FNV-1a checksum.
std::string EncodeJitFile(const JitFile& file);

// The file in |bytes| (read from |path|, named in errors). Throws tg::Error for a file that is not a
// saved Jit, of another format version, truncated, failing its checksum, or whose indices point
// outside its own tables. Device, ABI and fingerprint are checked when it is bound (saved_jit.h).
JitFile DecodeJitFile(std::string_view bytes, const std::string& path);

}  // namespace tg::compiler

#endif  // TG_COMPILER_JIT_FILE_H_
