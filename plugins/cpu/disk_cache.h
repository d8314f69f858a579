// disk_cache.h: the CPU plugin's on-disk file cache (kernel sources and compiled shared objects).
// Content-addressed names and atomic writes, so concurrent processes share one cache safely.
#ifndef TG_PLUGINS_CPU_DISK_CACHE_H_
#define TG_PLUGINS_CPU_DISK_CACHE_H_

#include <string>
#include <string_view>

namespace tg_cpu {

// The cache directory, created on first call: $TG_CACHE_DIR/cpu, else $XDG_CACHE_HOME/tinygrad-cc/cpu,
// else $HOME/.cache/tinygrad-cc/cpu, else /tmp/tinygrad-cc-<uid>/cpu (HOME is unset under bazel test).
// The first candidate that exists or can be created wins. Returns "" when none can be made; then
// |why| (may be NULL) receives the reason.
std::string CacheDir(std::string* why);

// 128-bit content hash of |parts| (each part length-prefixed so part boundaries matter), as 32
// hex characters. Not cryptographic: it names cache files, it does not defend against attackers.
std::string HashHex(std::initializer_list<std::string_view> parts);

// Writes |data| to |path| through a unique temporary file in the same directory and rename(2),
// so readers see either no file or the whole file. Returns false with |why| set on failure.
bool WriteFileAtomic(const std::string& path, std::string_view data, std::string* why);

// Reads a whole file. Returns false with |why| set on failure.
bool ReadFile(const std::string& path, std::string* out, std::string* why);

// Unique temporary name beside |path| (pid + random per-process nonce + counter), for writers that produce the file themselves
// (the C compiler) and then rename it into place.
std::string TempNameFor(const std::string& path);

bool FileExists(const std::string& path);

// Shared objects in the cache carry a checksum trailer (binary_envelope.h: AppendTrailer), so a file
// that a crash, a full disk or a bit flip damaged is never dlopen()ed (a truncated ELF is SIGBUS).
// WriteCachedObject stores |elf| with its trailer atomically. CachedObjectIsIntact: the file exists
// and its trailer matches; false otherwise (|why|, may be NULL, says what was wrong), and the caller
// rebuilds it. ReadCachedObject returns the ELF bytes without the trailer.
bool WriteCachedObject(const std::string& path, std::string_view elf, std::string* why);
bool CachedObjectIsIntact(const std::string& path, std::string* why);
bool ReadCachedObject(const std::string& path, std::string* elf, std::string* why);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_DISK_CACHE_H_
