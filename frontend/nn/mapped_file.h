// A read-only memory mapping of a whole file, for the lazy loaders (safe_load, gguf_load): each tensor's
// fill callback holds a shared_ptr to it, so the pages stay mapped until the last unread tensor goes.
#ifndef TG_FRONTEND_NN_MAPPED_FILE_H_
#define TG_FRONTEND_NN_MAPPED_FILE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace tg::nn {

class MappedFile {
 public:
  // Maps |path|; tg::Error "<who>: cannot open/map ..." or "... is not a regular file" otherwise. An
  // empty file maps to data() == nullptr, size() == 0.
  static std::shared_ptr<MappedFile> Open(const std::string& path, std::string_view who);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  explicit MappedFile(size_t size) : size_(size) {}
  const unsigned char* data_ = nullptr;
  size_t size_;
};

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_MAPPED_FILE_H_
