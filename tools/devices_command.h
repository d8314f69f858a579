// devices_command.h: `tg devices`: every plugin found, its status and reason, and each device's props.
// The user-facing view of runtime/device_registry.h (README.md).
#ifndef TG_TOOLS_DEVICES_COMMAND_H_
#define TG_TOOLS_DEVICES_COMMAND_H_

#include <ostream>
#include <vector>

#include "runtime/plugin_report.h"

namespace tg::tools {

// Prints |reports| as `tg devices` does, one block per plugin.
void PrintDevices(const std::vector<runtime::PluginReport>& reports, std::ostream& out);

// Runs `tg devices` on the global registry. Returns 0 when at least one device exists, else 1.
int DevicesCommand(std::ostream& out);

// `tg devices --probe`: the same listing, but every plugin is loaded in a child process of its own
// (tools/plugin_probe.h), so one that crashes or hangs is listed as "[crashed]" with the signal or exit
// status and its last stderr line, and the listing goes on. Must run before anything loads plugins.
// Plugins are not checked against each other (duplicate names are not reported).
int ProbeDevicesCommand(std::ostream& out, int timeout_seconds);

}  // namespace tg::tools

#endif  // TG_TOOLS_DEVICES_COMMAND_H_
