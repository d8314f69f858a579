// generate_main.cc: renders the CTS's host corpus (docs/plugins.md, "Host kernels"):
//   generate --out DIR
// writes DIR/manifest.json and DIR/<dialect>/<kernel><ext> for every dialect of dialect_targets.h and
// every kernel of host_kernels.h, each rendered by the host's own compiler exactly as realize would
// render it for such a device. Run at build time by //tools/cts_corpus:host_corpus; exits 1 with a
// message when a kernel does not render or does not schedule to one kernel.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include "compiler/codegen/codegen.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target.h"
#include "frontend/tg.h"
#include "nlohmann/json.hpp"
#include "tools/cts_corpus/dialect_targets.h"
#include "tools/cts_corpus/host_kernels.h"
#include "tools/cts_corpus/manifest_entry.h"

namespace tg::cts_corpus {
namespace {

// The one kernel |kernel|'s graph schedules to; two kernels would need a buffer between them that
// the manifest cannot describe.
compiler::ScheduleItem OnlyKernel(const HostKernel& kernel) {
  compiler::Schedule s = compiler::CreateSchedule({kernel.output.uop()}, {kernel.output.device()});
  std::vector<compiler::ScheduleItem> kernels;
  for (compiler::ScheduleItem& item : s.items)
    if (item.kind == compiler::ScheduleItem::Kind::kKernel) kernels.push_back(std::move(item));
  if (kernels.size() != 1)
    throw Error("cts_corpus: kernel '" + kernel.role + "' schedules to " + std::to_string(kernels.size()) +
                " kernels; a corpus kernel must be exactly one (make the expression smaller)");
  return kernels[0];
}

// With |kernel|'s opts for |target| where it has some, else with the heuristic's, as realize does.
compiler::GeneratedKernel Render(const HostKernel& kernel, const compiler::ScheduleItem& item,
                                 const DialectTarget& target, const compiler::Target& t) {
  std::vector<compiler::Opt> opts;
  if (kernel.opts) opts = kernel.opts(compiler::StartKernel(item.ast, target.device), t);
  return opts.empty() ? compiler::GenerateKernel(item.ast, target.device)
                      : compiler::GenerateKernel(item.ast, target.device, opts);
}

void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw Error("cts_corpus: cannot write " + path.string());
}

int Main(int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]) != "--out") {
    std::cerr << "usage: generate --out DIR\n";
    return 2;
  }
  const std::filesystem::path out_dir = argv[2];
  // Only the CPU plugin is needed, as the device the graph's buffers name (nothing runs there);
  // keep the vendor plugins and the LLVMs they embed out of a build action.
  setenv("TG_DISABLE_PLUGINS", "OPENCL,CUDA,HIP", 1);
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array(), gaps = nlohmann::ordered_json::array();
  for (const DialectTarget& target : DialectTargets()) {
    const compiler::Target t = compiler::Target::For(target.device);
    for (const HostKernel& kernel : HostKernels("CPU")) {
      compiler::ScheduleItem item = OnlyKernel(kernel);
      const bool known_gap = std::find(kernel.unrendered_in.begin(), kernel.unrendered_in.end(), target.dialect) !=
                             kernel.unrendered_in.end();
      std::optional<compiler::GeneratedKernel> g;
      try {
        g = Render(kernel, item, target, t);
      } catch (const Error& e) {
        if (!known_gap) throw;
        gaps.push_back({{"dialect", target.dialect}, {"name", kernel.role}, {"reason", e.what()}});
        continue;
      }
      if (known_gap)
        throw Error("cts_corpus: kernel '" + kernel.role + "' renders in " + target.dialect +
                    " now: drop the dialect from its unrendered_in (host_kernels.cc) and the pair from "
                    "_NOT_RENDERED in BUILD.bazel, so the kernel joins the corpus");
      const std::string file = target.dialect + "/" + kernel.role + target.ext;
      WriteFile(out_dir / file, g->source.source);
      kernels.push_back(ManifestEntry(target.dialect, t.gpu, file, kernel, item, *g));
    }
  }
  nlohmann::ordered_json manifest;
  manifest["format"] = "tinygrad-cc host kernel corpus";
  manifest["version"] = 1;
  manifest["generated_by"] = "//tools/cts_corpus:generate";
  manifest["kernels"] = kernels;
  manifest["not_rendered"] = gaps;  // what the host cannot emit yet, and why: nothing to run there
  WriteFile(out_dir / "manifest.json", manifest.dump(1) + "\n");
  return 0;
}

}  // namespace
}  // namespace tg::cts_corpus

int main(int argc, char** argv) {
  try {
    return tg::cts_corpus::Main(argc, argv);
  } catch (const tg::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
