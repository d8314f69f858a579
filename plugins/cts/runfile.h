// runfile.h: where a data file of the CTS lies when nobody passed its directory on the command line.
// Both corpora (kernel_corpus.h, host_corpus.h) come with the binary as runfiles.
#ifndef TG_PLUGINS_CTS_RUNFILE_H_
#define TG_PLUGINS_CTS_RUNFILE_H_

#include <string>

#include "plugins/cts/plugin_handle.h"

namespace tg_cts {

// The path of |workspace_path| (relative to the workspace root: "plugins/cts/kernels/c/vadd.c") in
// the runfiles of this binary, or "" when there are none. The runfiles path starts with the workspace
// name "tinygrad_cc", which holds both in this repository and in a vendor's workspace that names us
// @tinygrad_cc.
std::string Runfile(const Plugin& p, const std::string& workspace_path);

}  // namespace tg_cts

#endif  // TG_PLUGINS_CTS_RUNFILE_H_
