// plugin_discovery.h: where the runtime looks for plugin files (docs/plugins.md), in precedence order.
// Only lists paths; loading and validation are plugin_loader.h's job.
#ifndef TG_RUNTIME_PLUGIN_DISCOVERY_H_
#define TG_RUNTIME_PLUGIN_DISCOVERY_H_

#include <string>
#include <vector>

namespace tg::runtime {

// 1. the running binary's runfiles: <runfiles>/tinygrad_cc/plugins/*/libtg_*.so (found through
//    @bazel_tools' runfiles library from /proc/self/exe, RUNFILES_DIR or TEST_SRCDIR);
// 2. next to the binary: <dir of /proc/self/exe>/libtg_*.so (an installed layout; skipped when
//    the runfiles had plugins, because bazel-bin holds libtg_*.so files of ordinary libraries);
// 3. TG_PLUGIN_PATH: colon-separated directories (scanned for libtg_*.so) or .so paths.
// Within a directory, files are sorted by name. A file reached twice (same realpath) is listed once.
std::vector<std::string> DiscoverPluginPaths();

}  // namespace tg::runtime

#endif  // TG_RUNTIME_PLUGIN_DISCOVERY_H_
