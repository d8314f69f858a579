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

const std::vector<std::string>& BaseCompileFlags() {
  static const std::vector<std::string> flags = {"-O2", "-march=native", "-shared", "-fPIC"};
  return flags;
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
  std::string key = HashHex({source, flag_text, cc.command[0], cc.version});
  std::string c_path = dir + "/" + key + ".c";
  *so_path = dir + "/" + key + ".so";
  if (FileExists(*so_path)) return nullptr;

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
  if (rename(tmp_so.c_str(), so_path->c_str()) != 0) {
    unlink(tmp_so.c_str());
    return MakeError(TG_CODE_INTERNAL, "cannot rename " + tmp_so + " to " + *so_path);
  }
  return nullptr;
}

}  // namespace tg_cpu
