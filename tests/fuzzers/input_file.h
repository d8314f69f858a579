// The file a file-reading fuzz target hands its loader: one per process (fuzzing jobs run side by side),
// rewritten with each input.
#ifndef TG_TESTS_FUZZERS_INPUT_FILE_H_
#define TG_TESTS_FUZZERS_INPUT_FILE_H_

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tg::fuzz {

class InputFile {
 public:
  // |name| and |extension| make the file's name: TEST_TMPDIR (or /tmp)/tg_<name>_fuzz_<pid><extension>.
  InputFile(const std::string& name, const std::string& extension) {
    const char* dir = std::getenv("TEST_TMPDIR");
    path_ = std::string(dir ? dir : "/tmp") + "/tg_" + name + "_fuzz_" + std::to_string(getpid()) + extension;
  }
  // Replaces the file's bytes with |data| and returns its path; aborts (a fuzzer's failure) if it cannot.
  const std::string& Write(const uint8_t* data, size_t size) const {
    FILE* f = std::fopen(path_.c_str(), "wb");
    if (!f) std::abort();
    if (size && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
    return path_;
  }

 private:
  std::string path_;
};

}  // namespace tg::fuzz

#endif  // TG_TESTS_FUZZERS_INPUT_FILE_H_
