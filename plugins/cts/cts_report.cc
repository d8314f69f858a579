// cts_report.cc: a small JSON writer; the report is flat enough not to need a library.
#include "plugins/cts/cts_report.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace tg_cts {
namespace {

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string StringList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + Quote(items[i]);
  return out + "]";
}

std::string CountsJson(const Counts& c) {
  std::ostringstream o;
  o << "{\"pass\": " << c.pass << ", \"fail\": " << c.fail << ", \"skip\": " << c.skip
    << ", \"xfail\": " << c.xfail << ", \"xpass\": " << c.xpass << "}";
  return o.str();
}

std::string DeviceJson(const DeviceSummary& d) {
  std::ostringstream o;
  o << "{\"ordinal\": " << d.ordinal << ", \"name\": " << Quote(d.name) << ", \"vendor\": " << Quote(d.vendor)
    << ", \"arch\": " << Quote(d.arch) << ", \"fingerprint\": " << Quote(d.fingerprint)
    << ", \"caps\": " << d.caps << ", \"dialects\": " << StringList(d.dialects)
    << ", \"binary_formats\": " << StringList(d.binary_formats) << ", \"error\": " << Quote(d.error) << "}";
  return o.str();
}

std::string PluginJson(const Plugin& p) {
  const tg_plugin_api* a = p.api;
  std::ostringstream o;
  o << "{\"path\": " << Quote(p.path) << ", \"loaded\": " << (a ? "true" : "false")
    << ", \"load_error\": " << Quote(p.load_error)
    << ", \"name\": " << Quote(a && a->plugin_name ? a->plugin_name : "")
    << ", \"version\": " << Quote(a && a->plugin_version ? a->plugin_version : "")
    << ", \"abi\": " << Quote(a ? std::to_string(a->abi_major) + "." + std::to_string(a->abi_minor) : "")
    << "}";
  return o.str();
}

}  // namespace

std::string ReportJson(const Plugin& p, const std::vector<CaseResult>& results) {
  std::ostringstream o;
  o << "{\n  \"plugin\": " << PluginJson(p) << ",\n";
  o << "  \"device_count\": " << p.device_count << ",\n";
  o << "  \"no_device_reason\": " << Quote(p.no_device_reason) << ",\n";
  bool tested = p.device_ordinal < p.devices.size();
  o << "  \"tested_device\": " << (tested ? std::to_string(p.device_ordinal) : "null") << ",\n";
  o << "  \"fingerprint\": " << Quote(tested ? p.devices[p.device_ordinal].fingerprint : "") << ",\n";
  o << "  \"devices\": [";
  for (size_t i = 0; i < p.devices.size(); ++i) o << (i ? ", " : "") << DeviceJson(p.devices[i]);
  o << "],\n  \"tiers\": {";
  for (int t = 0; t < 5; ++t) o << (t ? ", " : "") << "\"T" << t << "\": " << CountsJson(CountTier(results, t));
  Counts all = CountTier(results, -1);
  o << "},\n  \"totals\": " << CountsJson(all) << ",\n";
  o << "  \"passed\": " << (all.fail == 0 ? "true" : "false") << ",\n  \"cases\": [\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const CaseResult& r = results[i];
    char secs[32];
    snprintf(secs, sizeof secs, "%.3f", r.seconds);
    o << "    {\"name\": " << Quote(r.name) << ", \"tier\": " << r.tier << ", \"result\": "
      << Quote(OutcomeName(r.outcome)) << ", \"detail\": " << Quote(r.detail) << ", \"seconds\": " << secs
      << "}" << (i + 1 < results.size() ? "," : "") << "\n";
  }
  o << "  ]\n}\n";
  return o.str();
}

bool WriteReport(const std::string& path, const std::string& json, std::string* error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << json;
  out.close();
  if (!out) return *error = "cannot write report " + path, false;
  return true;
}

}  // namespace tg_cts
