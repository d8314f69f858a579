#include "compiler/jit_file.h"

#include "ir/error.h"
#include "plugins/kit/fnv1a64.h"
#include "plugins/kit/little_endian.h"

namespace tg::compiler {
namespace {

constexpr std::string_view kMagic("TGJIT\0\r\n", 8);
constexpr size_t kHeaderBytes = 8 + 4 + 8;  // magic, format version, payload length
constexpr size_t kChecksumBytes = 8;

class Writer {
 public:
  void U32(uint64_t v) { tg_kit::PutLe(&out_, v, 4); }
  void U64(uint64_t v) { tg_kit::PutLe(&out_, v, 8); }
  void Bytes(std::string_view s) {
    U64(s.size());
    out_.append(s);
  }
  void Dims(const runtime::LaunchDims& d) {
    for (uint32_t v : d.num_groups) U32(v);
    for (uint32_t v : d.group_size) U32(v);
  }
  void Tensor(const JitFile::Tensor& t) {
    U32(t.shape.size());
    for (int64_t d : t.shape) U64(static_cast<uint64_t>(d));
    Bytes(t.dtype);
    U32(t.buffer);
    Bytes(t.name);
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

// Reads the payload; the checksum has passed, so running off the end means the writer was broken
// or the file was forged, and is reported as damage, never read past.
class Reader {
 public:
  Reader(std::string_view in, const std::string& path) : in_(in), path_(path) {}
  uint64_t U32() { return Take(4); }
  uint64_t U64() { return Take(8); }
  std::string Bytes() {
    uint64_t n = U64();
    if (n > in_.size() - at_) Damaged("a string runs past the end");
    std::string s(in_.substr(at_, n));
    at_ += n;
    return s;
  }
  runtime::LaunchDims Dims() {
    runtime::LaunchDims d;
    for (uint32_t& v : d.num_groups) v = static_cast<uint32_t>(U32());
    for (uint32_t& v : d.group_size) v = static_cast<uint32_t>(U32());
    return d;
  }
  JitFile::Tensor Tensor() {
    JitFile::Tensor t;
    t.shape.resize(Count(8));
    for (int64_t& d : t.shape) d = static_cast<int64_t>(U64());
    t.dtype = Bytes();
    t.buffer = static_cast<uint32_t>(U32());
    t.name = Bytes();
    return t;
  }
  // A table length, bounded by what the rest of the file could hold at |min_bytes| per entry.
  size_t Count(size_t min_bytes) {
    uint64_t n = U32();
    if (n * min_bytes > in_.size() - at_) Damaged("a table is longer than the file");
    return static_cast<size_t>(n);
  }
  bool AtEnd() const { return at_ == in_.size(); }
  [[noreturn]] void Damaged(const std::string& what) const {
    throw Error("saved Jit " + path_ + " is damaged (" + what + "); make it again with Jit::save or tg compile");
  }

 private:
  uint64_t Take(int bytes) {
    if (static_cast<size_t>(bytes) > in_.size() - at_) Damaged("it ends inside a field");
    uint64_t v = tg_kit::GetLe(in_, at_, bytes);
    at_ += bytes;
    return v;
  }
  std::string_view in_;
  size_t at_ = 0;
  const std::string& path_;
};

void EncodePayload(const JitFile& f, Writer& w) {
  w.U32(f.abi_major);
  w.U32(f.abi_minor);
  w.U32(f.devices.size());
  for (const auto& d : f.devices) {
    w.Bytes(d.name);
    w.Bytes(d.plugin);
    w.Bytes(d.arch);
    w.Bytes(d.fingerprint);
  }
  w.U32(f.kernels.size());
  for (const auto& k : f.kernels) {
    w.U32(k.device);
    w.Bytes(k.name);
    w.Bytes(k.entry);
    w.Bytes(k.format);
    w.Bytes(k.binary);
    w.Dims(k.dims);
  }
  w.U32(f.buffers.size());
  for (const auto& b : f.buffers) {
    w.U32(b.device);
    w.U64(b.nbytes);
    w.Bytes(b.dtype);
    w.U32(b.has_initial);
    w.Bytes(b.initial);
  }
  w.U32(f.launches.size());
  for (const auto& l : f.launches) {
    w.U32(l.is_copy);
    w.U32(l.kernel);
    w.U64(l.copy_bytes);
    w.U32(l.buffers.size());
    for (uint32_t b : l.buffers) w.U32(b);
  }
  w.U32(f.inputs.size());
  for (const auto& t : f.inputs) w.Tensor(t);
  w.U32(f.outputs.size());
  for (const auto& t : f.outputs) w.Tensor(t);
}

JitFile DecodePayload(Reader& r) {
  JitFile f;
  f.abi_major = static_cast<uint32_t>(r.U32());
  f.abi_minor = static_cast<uint32_t>(r.U32());
  f.devices.resize(r.Count(32));
  for (auto& d : f.devices) {
    d.name = r.Bytes();
    d.plugin = r.Bytes();
    d.arch = r.Bytes();
    d.fingerprint = r.Bytes();
  }
  f.kernels.resize(r.Count(60));
  for (auto& k : f.kernels) {
    k.device = static_cast<uint32_t>(r.U32());
    k.name = r.Bytes();
    k.entry = r.Bytes();
    k.format = r.Bytes();
    k.binary = r.Bytes();
    k.dims = r.Dims();
  }
  f.buffers.resize(r.Count(28));
  for (auto& b : f.buffers) {
    b.device = static_cast<uint32_t>(r.U32());
    b.nbytes = r.U64();
    b.dtype = r.Bytes();
    b.has_initial = r.U32() != 0;
    b.initial = r.Bytes();
  }
  f.launches.resize(r.Count(20));
  for (auto& l : f.launches) {
    l.is_copy = r.U32() != 0;
    l.kernel = static_cast<uint32_t>(r.U32());
    l.copy_bytes = r.U64();
    l.buffers.resize(r.Count(4));
    for (uint32_t& b : l.buffers) b = static_cast<uint32_t>(r.U32());
  }
  f.inputs.resize(r.Count(24));
  for (auto& t : f.inputs) t = r.Tensor();
  f.outputs.resize(r.Count(24));
  for (auto& t : f.outputs) t = r.Tensor();
  if (!r.AtEnd()) r.Damaged("bytes are left after the last table");
  return f;
}

// Every index points into its table, so binding never reads out of bounds.
void CheckIndices(const JitFile& f, const Reader& r) {
  for (const auto& k : f.kernels)
    if (k.device >= f.devices.size()) r.Damaged("a kernel names a device it does not list");
  for (const auto& b : f.buffers) {
    if (b.device >= f.devices.size()) r.Damaged("a buffer names a device it does not list");
    if (b.has_initial && b.initial.size() != b.nbytes) r.Damaged("a buffer's contents are not its size");
  }
  for (const auto& l : f.launches) {
    if (!l.is_copy && l.kernel >= f.kernels.size()) r.Damaged("a launch names a kernel it does not list");
    if (l.is_copy && l.buffers.size() != 2) r.Damaged("a copy does not have two buffers");
    for (uint32_t b : l.buffers)
      if (b >= f.buffers.size()) r.Damaged("a launch names a buffer it does not list");
  }
  for (const auto* list : {&f.inputs, &f.outputs})
    for (const auto& t : *list)
      if (t.buffer >= f.buffers.size()) r.Damaged("an input or output names a buffer it does not list");
}

}  // namespace

std::string EncodeJitFile(const JitFile& file) {
  Writer payload;
  EncodePayload(file, payload);
  std::string out(kMagic);
  tg_kit::PutLe(&out, JitFile::kFormatVersion, 4);
  tg_kit::PutLe(&out, payload.out().size(), 8);
  out += payload.out();
  tg_kit::PutLe(&out, tg_kit::Fnv1a64(out), kChecksumBytes);
  return out;
}

JitFile DecodeJitFile(std::string_view bytes, const std::string& path) {
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic)
    throw Error("file " + path + " is not a saved Jit (it does not start with the TGJIT magic); saved Jits are "
                "made by Jit::save or tg compile");
  if (bytes.size() < kHeaderBytes)
    throw Error("saved Jit " + path + " is truncated: it ends inside its header");
  uint64_t version = tg_kit::GetLe(bytes, 8, 4);
  if (version != JitFile::kFormatVersion)
    throw Error("saved Jit " + path + " has format version " + std::to_string(version) + "; this build reads version " +
                std::to_string(JitFile::kFormatVersion) + " only: make it again with this build");
  uint64_t payload = tg_kit::GetLe(bytes, 12, 8);
  uint64_t expected = kHeaderBytes + payload + kChecksumBytes;
  if (payload > bytes.size() || bytes.size() < expected)
    throw Error("saved Jit " + path + " is truncated: its header promises " + std::to_string(expected) +
                " bytes, the file has " + std::to_string(bytes.size()));
  if (bytes.size() > expected)
    throw Error("saved Jit " + path + " is damaged: " + std::to_string(bytes.size() - expected) +
                " bytes follow its checksum");
  size_t body = kHeaderBytes + payload;
  if (tg_kit::GetLe(bytes, body, kChecksumBytes) != tg_kit::Fnv1a64(bytes.substr(0, body)))
    throw Error("saved Jit " + path + " is damaged: its checksum does not match its contents (a changed byte); "
                "make it again with Jit::save or tg compile");
  Reader reader(bytes.substr(kHeaderBytes, payload), path);
  JitFile file = DecodePayload(reader);
  CheckIndices(file, reader);
  return file;
}

}  // namespace tg::compiler
