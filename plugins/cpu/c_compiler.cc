// c_compiler.cc: compiler discovery and the compile-into-cache step.
#include "plugins/cpu/c_compiler.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sstream>

#include "plugins/cpu/disk_cache.h"
#include "plugins/cpu/subprocess.h"

namespace tg_cpu {
namespace {

std::vector<std::string> SplitSpaces(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream in{std::string(s)};
  std::string word;
  while (in >> word) out.push_back(word);
  return out;
}

// Resolves |name| on $PATH ourselves (posix_spawnp would too) so a missing compiler is reported
// with the list of places we looked instead of a failed spawn.
std::string ResolveOnPath(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* env = getenv("PATH");
  std::string path = env != nullptr && *env != '\0' ? env : "/usr/local/bin:/usr/bin:/bin";
  std::istringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string full = (dir.empty() ? "." : dir) + "/" + name;
    if (access(full.c_str(), X_OK) == 0) return full;
  }
  return "";
}

CCompiler Discover() {
  CCompiler cc;
  std::vector<std::vector<std::string>> candidates;
  if (const char* env = getenv("CC"); env != nullptr && *env != '\0') {
    candidates.push_back(SplitSpaces(env));
  }
  for (const char* name : {"cc", "gcc", "clang"}) candidates.push_back({name});
  for (std::vector<std::string>& cand : candidates) {
    if (cand.empty()) continue;
    cc.tried += (cc.tried.empty() ? "" : ", ") + cand[0];
    std::string resolved = ResolveOnPath(cand[0]);
    if (resolved.empty()) continue;
    cand[0] = resolved;
    cc.command = cand;
    std::vector<std::string> argv = cc.command;
    argv.push_back("--version");
    ProcessResult r = RunProcess(argv);
    cc.version = r.output.substr(0, r.output.find('\n'));
    return cc;
  }
  return cc;
}

tg_error* CompileFailed(const std::vector<std::string>& argv, const ProcessResult& r) {
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  if (!r.spawned) {
    return MakeError(TG_CODE_UNAVAILABLE, "cannot run the C compiler (" + cmd +
                                              "): " + strerror(r.spawn_errno));
  }
  return MakeError(TG_CODE_INVALID_ARGUMENT, "C compile failed (exit " +
                                                 std::to_string(r.exit_code) + "): " + cmd +
                                                 "\n" + r.output);
}

}  // namespace

const CCompiler& FindCCompiler() {
  static const CCompiler* cc = new CCompiler(Discover());  // leaked: used until exit
  return *cc;
}

// When this plugin is built with a sanitizer (bazel --config=asan / --config=tsan), the kernels it
// generates run in the same sanitized process, so they are instrumented the same way: an out-of-bounds
// index in generated code is then reported like one in ours. Decided at compile time from the
// compiler's own predefined macros rather than an environment variable, so the kernels can never
// disagree with the host (an asan kernel dlopen()ed by a plain process aborts, a plain kernel in an
// asan process is silently unchecked). The flags join the cache key and the device fingerprint, so
// sanitized and plain kernels never share a cache entry.
#if defined(__SANITIZE_ADDRESS__)
#define TG_CPU_KERNEL_SANITIZER "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
#elif defined(__SANITIZE_THREAD__)
#define TG_CPU_KERNEL_SANITIZER "-fsanitize=thread",
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)  // clang spells it this way
#define TG_CPU_KERNEL_SANITIZER "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
#elif __has_feature(thread_sanitizer)
#define TG_CPU_KERNEL_SANITIZER "-fsanitize=thread",
#endif
#endif
#ifndef TG_CPU_KERNEL_SANITIZER
#define TG_CPU_KERNEL_SANITIZER
#endif

// -fwrapv: tensor integer arithmetic wraps in two's complement (as in tinygrad, numpy, and our llvm-ir
// path, which emits add/sub/mul without nsw). Without it, C calls INT_MIN's negation undefined and gcc
// may fold "-a < -b" into "b < a", which is wrong for INT_MIN (UBSan found it in sort's generated max
// of negated values).
//
// -fno-tree-loop-vectorize (gcc only): gcc 12.2's loop vectorizer miscompiles reductions that read with a
// negative stride over several loops (a flipped tensor's sum: tests/fuzz/program_regression_test.cc has the
// reproducer, found by the differential fuzzer). Our kernels carry their own vector code, so what this turns
// off is only gcc's auto-vectorization of the scalar loops.
bool KernelsAreSanitized() {
  const std::vector<std::string> flags = {TG_CPU_KERNEL_SANITIZER};
  return !flags.empty();
}

const std::vector<std::string>& BaseCompileFlags() {
  // Leaked like FindCCompiler's result: compiles may still run while the process exits.
  static const std::vector<std::string>* flags = [] {
    auto* f = new std::vector<std::string>{"-O2", "-march=native", "-shared", "-fPIC", "-fwrapv", TG_CPU_KERNEL_SANITIZER};
    if (FindCCompiler().version.find("clang") == std::string::npos) f->push_back("-fno-tree-loop-vectorize");
    return f;
  }();
  return *flags;
}

tg_error* CompileToSharedObject(std::string_view source, std::string_view options,
                                std::string* so_path) {
  const CCompiler& cc = FindCCompiler();
  if (cc.command.empty()) {
    return MakeError(TG_CODE_UNAVAILABLE,
                     "no C compiler found (tried $CC, then " + cc.tried +
                         " on $PATH); install gcc or clang, or set CC");
  }
  std::string why;
  std::string dir = CacheDir(&why);
  if (dir.empty()) return MakeError(TG_CODE_UNAVAILABLE, why);

  std::vector<std::string> extra = SplitSpaces(options);
  std::string flag_text;
  for (const std::string& f : BaseCompileFlags()) flag_text += f + " ";
  for (const std::string& f : extra) flag_text += f + " ";
  std::string compiler_text;  // all of $CC ("gcc -O0" and "gcc" must not share entries)
  for (const std::string& w : cc.command) compiler_text += w + " ";
  std::string key = HashHex({source, flag_text, compiler_text, cc.version});
  std::string c_path = dir + "/" + key + ".c";
  *so_path = dir + "/" + key + ".so";
  if (CachedObjectIsIntact(*so_path, nullptr)) return nullptr;  // else missing or damaged: rebuild

  if (!WriteFileAtomic(c_path, source, &why)) return MakeError(TG_CODE_INTERNAL, why);
  std::string tmp_so = TempNameFor(*so_path);
  std::vector<std::string> argv = cc.command;
  argv.insert(argv.end(), BaseCompileFlags().begin(), BaseCompileFlags().end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), {"-o", tmp_so, c_path, "-lm"});
  ProcessResult r = RunProcess(argv);
  if (!r.spawned || r.exit_code != 0) {
    unlink(tmp_so.c_str());
    return CompileFailed(argv, r);
  }
  // The compiler's output gets its checksum trailer and only then its cache name (one atomic rename),
  // so a process that shares this directory sees no file or a whole, verifiable one.
  std::string elf;
  bool stored = ReadFile(tmp_so, &elf, &why) && WriteCachedObject(*so_path, elf, &why);
  unlink(tmp_so.c_str());
  if (!stored) return MakeError(TG_CODE_INTERNAL, "cannot store the compiled kernel: " + why);
  return nullptr;
}

}  // namespace tg_cpu
