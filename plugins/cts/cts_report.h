// cts_report.h: the JSON report of one CTS run (--report out.json).
// For CI and for vendors: plugin identity, devices, per-tier counts and every case's outcome.
#ifndef TG_PLUGINS_CTS_CTS_REPORT_H_
#define TG_PLUGINS_CTS_CTS_REPORT_H_

#include <string>
#include <vector>

#include "plugins/cts/cts_runner.h"
#include "plugins/cts/plugin_handle.h"

namespace tg_cts {

// {"plugin": {path, name, version, abi, loaded, load_error}, "device_count", "no_device_reason",
//  "tested_device", "fingerprint", "devices": [...], "tiers": {"T0": {pass, fail, skip, xfail,
//  xpass}, ...}, "totals": {...}, "passed": bool, "cases": [{name, tier, result, detail, seconds}]}
std::string ReportJson(const Plugin& plugin, const std::vector<CaseResult>& results);

bool WriteReport(const std::string& path, const std::string& json, std::string* error);

}  // namespace tg_cts

#endif  // TG_PLUGINS_CTS_CTS_REPORT_H_
