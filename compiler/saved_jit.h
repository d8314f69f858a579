// SavedJit: a captured tg::Jit taken out of the process and brought back (docs/saved_jit.md).
// SaveCapture turns a capture's schedule items into a JitFile (compiler/jit_file.h); a SavedJit binds
// one to this process's devices, loading every kernel from its binary (no compiler runs) and
// allocating its buffers, and then replays the launch list. frontend/jit.h is the user's half.
#ifndef TG_COMPILER_SAVED_JIT_H_
#define TG_COMPILER_SAVED_JIT_H_

#include <memory>
#include <string>
#include <vector>

#include "compiler/jit_file.h"
#include "compiler/schedule/schedule_item.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "runtime/program.h"

namespace tg::compiler {

// The file of a capture: |items| as the capture ran them, |inputs| and |outputs| the buffer views of
// the function's arguments and results (whole buffers; sharded tensors are not saved). Reads every
// kernel's binary and the current contents of every buffer read before the Jit writes it. Throws
// tg::Error when a device cannot export its binaries or an input/output is not a plain buffer.
JitFile SaveCapture(const std::vector<ScheduleItem>& items, const std::vector<UOpRef>& inputs,
                    const std::vector<UOpRef>& outputs);

class SavedJit {
 public:
  // Binds |file| (read from |path|, named in errors) to this process. Throws tg::Error, naming what
  // the file wants and what is here, for another plugin ABI major, a device that is missing or of
  // another plugin, another compile fingerprint, or a binary the plugin refuses.
  SavedJit(JitFile file, const std::string& path);

  // Runs the launch list with |inputs| (one buffer view per input, already checked against the
  // signature) bound to the input buffers. Returns the output BUFFER nodes: the same nodes every
  // call, except an output that is an input, which is that input's view.
  std::vector<UOpRef> Run(const std::vector<UOpRef>& inputs);

  // The bound file, with each state buffer's initial contents read back from its buffer now, so a
  // loaded Jit that trained is saved with what it learned.
  JitFile Snapshot() const;

  const JitFile& file() const { return file_; }
  size_t kernel_launches() const;

 private:
  void BindDevices(const std::string& path);
  void LoadKernels(const std::string& path);
  void MakeBuffers();

  JitFile file_;
  std::vector<runtime::Device*> devices_;
  std::vector<std::shared_ptr<runtime::Program>> programs_;
  std::vector<std::shared_ptr<runtime::Buffer>> buffers_;  // null for input buffers
  std::vector<int> input_of_buffer_;                       // input index per buffer, -1 if none
  std::vector<UOpRef> output_nodes_;
  std::vector<runtime::Buffer*> bound_;                    // buffers_ with this call's inputs
  std::vector<runtime::KernelArg> args_;
};

// Whole-file I/O for saved Jits: the write goes to a temporary name first, so a reader never sees half
// a file. tg::Error naming |path| and the reason when it cannot.
void WriteJitFileBytes(const std::string& path, const std::string& bytes);
std::string ReadJitFileBytes(const std::string& path);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SAVED_JIT_H_
