// tier2_host_kernels.cc: T2's host corpus: every kernel the host's renderers emitted for a dialect the
// device declares (host_corpus.h), compiled, launched with the manifest's grid and arguments, and its
// output checked against the expected values the generator computed on the host.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "plugins/cts/device_session.h"
#include "plugins/cts/half_float.h"
#include "plugins/cts/host_corpus.h"
#include "plugins/cts/tiers.h"

namespace tg_cts {
namespace {

// |arg|'s bytes: its pattern repeated over count elements. An output starts as all-ones bytes (NaN
// in float32 and float16, -1 in int32), so an element the kernel never writes cannot pass.
std::vector<unsigned char> Contents(const HostArg& arg) {
  const uint32_t size = ElementBytes(arg.type);
  std::vector<unsigned char> bytes(arg.count * size, 0xff);
  if (arg.output) return bytes;
  for (uint64_t i = 0; i < arg.count; ++i) {
    const double v = arg.values[i % arg.values.size()];
    unsigned char* at = bytes.data() + i * size;
    if (arg.type == ElementType::kFloat32) {
      float f = static_cast<float>(v);
      std::memcpy(at, &f, 4);
    } else if (arg.type == ElementType::kFloat16) {
      uint16_t h = FloatToHalf(static_cast<float>(v));
      std::memcpy(at, &h, 2);
    } else {
      int32_t n = static_cast<int32_t>(v);
      std::memcpy(at, &n, 4);
    }
  }
  return bytes;
}

double ElementAt(const std::vector<unsigned char>& bytes, ElementType type, uint64_t i) {
  if (type == ElementType::kFloat32) {
    float f;
    std::memcpy(&f, bytes.data() + i * 4, 4);
    return f;
  }
  if (type == ElementType::kFloat16) {
    uint16_t h;
    std::memcpy(&h, bytes.data() + i * 2, 2);
    return HalfToFloat(h);
  }
  int32_t n;
  std::memcpy(&n, bytes.data() + i * 4, 4);
  return n;
}

// Fails with the first few wrong elements and how many there are in all.
void CheckOutput(const HostKernel& k, size_t index, const HostArg& arg, const std::vector<unsigned char>& got) {
  uint64_t wrong = 0;
  std::ostringstream first;
  first.precision(9);
  for (uint64_t i = 0; i < arg.count; ++i) {
    const double want = arg.values[i % arg.values.size()], v = ElementAt(got, arg.type, i);
    if (std::fabs(v - want) <= arg.atol + arg.rtol * std::fabs(want)) continue;  // false for NaN
    if (++wrong <= 4) first << (wrong > 1 ? ", " : "") << "[" << i << "] = " << v << " (want " << want << ")";
  }
  if (wrong == 0) return;
  std::ostringstream msg;
  msg << k.entry << " (" << k.what << "): argument " << index << " has " << wrong << " of " << arg.count
      << " elements wrong, tolerance " << arg.atol << " + " << arg.rtol << " * |want|: " << first.str();
  Fail(msg.str());
}

// The rendered grid must fit the device; a host would render for a smaller one, which this corpus
// (rendered for a conservative made-up device) cannot show, so that is a skip, not a failure.
void RequireGridFits(const DeviceSession& s, const HostKernel& k) {
  uint64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    threads *= k.group_size[d];
    if (k.group_size[d] > s.props().max_group_size[d])
      Skip("the kernel's group is " + std::to_string(k.group_size[d]) + " in dimension " + std::to_string(d) +
           "; the device allows " + std::to_string(s.props().max_group_size[d]));
  }
  if (threads > s.props().max_group_threads)
    Skip("the kernel's group has " + std::to_string(threads) + " work items; the device allows " +
         std::to_string(s.props().max_group_threads));
}

void RunHostKernel(const Plugin& p, const HostKernel& k) {
  DeviceSession s(p);
  if (!s.HasDialect(k.dialect)) Skip("the device does not declare dialect \"" + k.dialect + "\"");
  if (k.needs_fp16 && !s.HasCap(TG_CAP_FP16)) Skip("a float16 kernel; the device does not declare TG_CAP_FP16");
  RequireGridFits(s, k);
  std::ifstream in(k.path, std::ios::binary);
  if (!in) Fail("cannot read " + k.path + ", which the host corpus's manifest lists");
  std::ostringstream source;
  source << in.rdbuf();
  tg_program* raw = nullptr;
  Check(s.api(), s.CompileRaw(k.dialect, source.str(), k.entry, &raw), "compiling " + k.path);
  CTS_CHECK(raw != nullptr, "program_compile returned OK and no program");
  Program prog(&s.api(), raw);

  std::vector<Buffer> buffers;  // one per buffer argument, in argument order
  std::vector<tg_arg> args;
  for (const HostArg& arg : k.args) {
    if (arg.kind == HostArg::Kind::kI32) {
      args.push_back(I32Arg(static_cast<int32_t>(arg.value)));
    } else if (arg.kind == HostArg::Kind::kI64) {
      args.push_back(I64Arg(arg.value));
    } else {
      std::vector<unsigned char> bytes = Contents(arg);
      buffers.push_back(s.Alloc(bytes.size()));
      s.Write(buffers.back(), 0, bytes.data(), bytes.size());
      args.push_back(BufferArg(buffers.back()));
    }
  }
  Grid g;
  std::memcpy(g.groups, k.num_groups, sizeof g.groups);
  std::memcpy(g.size, k.group_size, sizeof g.size);
  s.Launch(prog, g, args);
  s.Sync();
  size_t b = 0;
  for (size_t i = 0; i < k.args.size(); ++i) {
    const HostArg& arg = k.args[i];
    if (arg.kind != HostArg::Kind::kBuffer) continue;
    const Buffer& buf = buffers[b++];
    if (!arg.output) continue;
    std::vector<unsigned char> got(arg.count * ElementBytes(arg.type));
    s.Read(buf, 0, got.data(), got.size());
    CheckOutput(k, i, arg, got);
  }
}

// The manifest itself: present and well-formed. Its kernels' cases are only listed when it is, so a
// broken one fails here instead of testing nothing. A CTS built in a vendor's workspace carries no
// corpus (plugins/cts/BUILD.bazel): without --host-corpus that is a skip saying how to get one.
void ManifestReadable(const Plugin& p) {
  if (p.api == nullptr || p.device_count == 0) Skip("no device to run the host corpus on");
  const HostCorpus& corpus = LoadHostCorpus(p);
  if (!corpus.found && p.host_corpus_dir.empty()) Skip(corpus.error);
  if (!corpus.error.empty()) Fail(corpus.error);
  CTS_CHECK(!corpus.kernels.empty(), "host corpus " + corpus.manifest + " lists no kernels");
}

}  // namespace

std::vector<Case> Tier2HostKernelCases(const Plugin& config) {
  std::vector<Case> cases = {{2, "HostKernels.manifest", ManifestReadable}};
  for (const HostKernel& k : LoadHostCorpus(config).kernels) {
    cases.push_back({2, "HostKernels." + k.dialect + "." + k.name, [k](const Plugin& p) { RunHostKernel(p, k); }});
  }
  return cases;
}

}  // namespace tg_cts
