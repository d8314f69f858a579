#include "frontend/nn/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ir/error.h"

namespace tg::nn {

std::shared_ptr<MappedFile> MappedFile::Open(const std::string& path, std::string_view who) {
  const std::string where(who);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(where + ": cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(where + ": " + path + " is not a regular file");
  }
  auto file = std::shared_ptr<MappedFile>(new MappedFile(static_cast<size_t>(st.st_size)));
  if (file->size_ > 0) {
    void* p = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int mmap_errno = errno;
      ::close(fd);
      throw Error(where + ": cannot map " + path + ": " + std::strerror(mmap_errno));
    }
    file->data_ = static_cast<const unsigned char*>(p);
  }
  ::close(fd);  // the mapping keeps the file's pages reachable
  return file;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<unsigned char*>(data_), size_);
}

}  // namespace tg::nn
