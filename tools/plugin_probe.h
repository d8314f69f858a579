// plugin_probe.h: `tg devices --probe`: each plugin is loaded and queried in a child process of its own,
// so a plugin that crashes or hangs inside initialize (a broken driver) costs only its own row.
#ifndef TG_TOOLS_PLUGIN_PROBE_H_
#define TG_TOOLS_PLUGIN_PROBE_H_

#include <string>
#include <vector>

namespace tg::tools {

struct ProbeResult {
  std::string path;
  bool completed = false;  // the child printed its whole report and exited normally
  bool has_devices = false;
  std::string report;      // the child's `tg devices` block for this plugin, when completed
  std::string failure;     // otherwise: "was killed by signal 11 (Segmentation fault)", "exited with ...", ...
  std::string last_words;  // the child's last stderr line (an assert's or sanitizer's message), if any
};

// Forks one child per plugin file (the caller must not have loaded plugins or started threads yet),
// which loads |path| alone into a fresh DeviceRegistry, opens its devices and sends back the printed
// report. A child that dies, exits early or runs past |timeout_seconds| (then SIGKILLed) yields a
// failure that names the signal or exit status.
ProbeResult ProbePlugin(const std::string& path, int timeout_seconds);

// The `tg devices` block of a plugin whose probe did not complete: "[crashed]" with the reason.
std::string CrashedBlock(const ProbeResult& r);

}  // namespace tg::tools

#endif  // TG_TOOLS_PLUGIN_PROBE_H_
