#include "tools/bench/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/error.h"
#include "tools/bench/significance.h"

namespace tg::bench {
namespace {

using Json = nlohmann::json;
using Key = std::tuple<std::string, std::string, std::string>;

Key KeyOf(const Record& r) { return {r.name, r.device, r.metric}; }

// Ratio > 1 = better, for either direction. A zero or negative figure (a failed run) compares as 0.
double BetterRatio(double current, double baseline, bool lower_is_better) {
  if (!(current > 0) || !(baseline > 0)) return 0;
  return lower_is_better ? baseline / current : current / baseline;
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

// Three significant digits or more: 0.745, 16.7, 141.2, 14555.
std::string Figure(double v) {
  double a = std::fabs(v);
  return Fixed(v, a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4);
}

using RowKey = std::pair<std::string, std::string>;  // (workload, device)

// The "median" records by (workload, device), and the keys in first-seen order.
std::map<RowKey, const Record*> Medians(const Report& r, std::vector<RowKey>* order) {
  std::map<RowKey, const Record*> m;
  for (const Record& rec : r.records) {
    if (rec.metric != "median" || rec.name == "*") continue;
    if (m.emplace(RowKey{rec.name, rec.device}, &rec).second && order != nullptr) order->push_back({rec.name, rec.device});
  }
  return m;
}

// A peer's cell: its figure and ours / it, direction-aware, when both were measured in the same unit.
std::string PeerCell(const Record* ours, const Record* peer) {
  if (peer == nullptr) return "";
  if (!peer->skipped.empty()) return "skipped";
  std::string cell = Figure(peer->value);
  if (ours != nullptr && ours->skipped.empty() && ours->unit == peer->unit) {
    double ratio = BetterRatio(ours->value, peer->value, LowerIsBetter(ours->unit));
    cell += " (" + Fixed(ratio, 2) + "x)";
  } else if (ours != nullptr && ours->skipped.empty()) {
    cell += " " + peer->unit;
  }
  return cell;
}

// Every skipped record of either report, with its reason, under the table.
void PrintSkipped(const Report& ours, const Report& peers, std::ostream& out) {
  bool any = false;
  for (const Report* r : {&ours, &peers})
    for (const Record& rec : r->records) {
      if (rec.skipped.empty()) continue;
      std::string what = rec.name == "*" ? "every workload" : rec.name;
      std::string who = r == &ours ? "ours on " + rec.device : rec.device;
      out << (any ? "" : "\n") << "- skipped: " << what << " (" << who << "): " << rec.skipped << "\n";
      any = true;
    }
}

std::vector<double> SamplesOf(const Json& row, const std::string& what) {
  std::vector<double> samples;
  if (!row.contains("samples")) return samples;
  const Json& s = row["samples"];
  bool numbers = s.is_array() && std::all_of(s.begin(), s.end(), [](const Json& v) { return v.is_number(); });
  if (!numbers) throw Error(what + ": \"samples\" must be an array of numbers: " + row.dump());
  for (const Json& v : s) samples.push_back(v.get<double>());
  return samples;
}

// The samples in "better" order: for a time lower is better, so the U test sees the same direction
// as the ratio whatever the unit.
std::vector<double> Goodness(const Record& r) {
  std::vector<double> g = r.samples;
  if (LowerIsBetter(r.unit))
    for (double& v : g) v = -v;
  return g;
}

// Fills |c|'s test and verdict: regressed only when below the threshold and, where both sides have
// enough samples, significant.
void Judge(Comparison& c, const Record& baseline, const GateOptions& gate) {
  c.tested = c.current.samples.size() >= kMinSamplesForTest && baseline.samples.size() >= kMinSamplesForTest;
  if (c.tested) c.p_value = MannWhitneyU(Goodness(c.current), Goodness(baseline)).p_value;
  bool below = c.ratio < gate.threshold;
  bool significant = c.tested && c.p_value < gate.alpha;
  c.regressed = below && (significant || !c.tested);
  if (!below) c.verdict = "";
  else if (!c.tested) c.verdict = "regressed: below the threshold (threshold only: too few samples to test)";
  else if (significant) c.verdict = "regressed: below the threshold and significant";
  else c.verdict = "noise: below the threshold, not significant";
}

}  // namespace

bool LowerIsBetter(const std::string& unit) {
  // Every time unit starts with its scale: ms, ms/iter, us/op, s, ns.
  return unit == "s" || unit.rfind("ms", 0) == 0 || unit.rfind("us", 0) == 0 || unit.rfind("ns", 0) == 0 ||
         unit.rfind("s/", 0) == 0;
}

std::string ToJson(const Report& report) {
  Json results = Json::array();
  for (const Record& r : report.records) {
    Json row = {{"name", r.name}, {"device", r.device}, {"metric", r.metric}, {"unit", r.unit}};
    if (r.skipped.empty()) row["value"] = r.value;
    else row["skipped"] = r.skipped;
    if (!r.samples.empty()) row["samples"] = r.samples;
    results.push_back(std::move(row));
  }
  Json out = {{"suite", "tinygrad-cc bench"}, {"context", report.context}, {"results", results}};
  return out.dump(1) + "\n";
}

Report FromJson(const std::string& text, const std::string& what) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("results") || !j["results"].is_array())
    throw Error(what + ": not a tg bench report (expected a JSON object with a \"results\" array)");
  Report report;
  if (j.contains("context") && j["context"].is_object())
    for (auto& [k, v] : j["context"].items()) report.context[k] = v.is_string() ? v.get<std::string>() : v.dump();
  for (const Json& row : j["results"]) {
    bool skipped = row.is_object() && row.contains("skipped") && row["skipped"].is_string();
    bool valued = row.is_object() && row.contains("value") && row["value"].is_number();
    if (!row.is_object() || !row.contains("name") || !row["name"].is_string() || !(valued || skipped))
      throw Error(what + ": a result needs a \"name\" and a numeric \"value\" (or a \"skipped\" reason): " +
                  row.dump());
    Record r;
    r.name = row["name"].get<std::string>();
    r.device = row.value("device", "");
    r.metric = row.value("metric", "median");
    r.value = valued ? row["value"].get<double>() : 0;
    r.unit = row.value("unit", "");
    if (skipped) r.skipped = row["skipped"].get<std::string>();
    r.samples = SamplesOf(row, what);
    report.records.push_back(std::move(r));
  }
  return report;
}

Report ReadReportFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return FromJson(ss.str(), path);
}

void WriteReportFile(const Report& report, const std::string& path) {
  // Written beside and renamed, so a crashed run never leaves a half file a later --compare trusts.
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw Error("cannot write " + tmp);
    out << ToJson(report);
    if (!out.flush()) throw Error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw Error("cannot rename " + tmp + " to " + path);
}

CompareResult Compare(const Report& current, const Report& baseline, const GateOptions& gate) {
  std::map<Key, const Record*> base;
  for (const Record& r : baseline.records) base[KeyOf(r)] = &r;
  CompareResult result;
  for (const Record& r : current.records) {
    auto it = base.find(KeyOf(r));
    bool matched = it != base.end();
    bool base_skipped = matched && !it->second->skipped.empty();
    if (matched && (!r.skipped.empty() || base_skipped)) base.erase(it);
    if (!r.skipped.empty()) {
      result.skipped.push_back(r);
      continue;
    }
    if (!matched || base_skipped) {
      result.only_current.push_back(r);
      continue;
    }
    Comparison c;
    c.current = r;
    c.baseline = it->second->value;
    c.ratio = BetterRatio(r.value, it->second->value, LowerIsBetter(r.unit));
    Judge(c, *it->second, gate);
    result.any_regressed |= c.regressed;
    result.rows.push_back(std::move(c));
    base.erase(it);
  }
  for (const auto& [key, rec] : base) result.only_baseline.push_back(*rec);
  return result;
}

void PrintComparison(const CompareResult& result, const GateOptions& gate, std::ostream& out) {
  out << "workload                       device   metric      current     baseline  unit       ratio  p (U test)\n";
  for (const Comparison& c : result.rows) {
    char line[320];
    std::string p = c.tested ? Fixed(c.p_value, 4) : "-";
    std::string verdict = c.verdict.empty() ? "" : "  " + std::string(c.regressed ? "REGRESSED" : "noise") +
                                                   " (" + c.verdict + ")";
    std::snprintf(line, sizeof(line), "%-30s %-8s %-7s %12s %12s  %-9s %6sx  %-10s%s\n", c.current.name.c_str(),
                  c.current.device.c_str(), c.current.metric.c_str(), Fixed(c.current.value, 3).c_str(),
                  Fixed(c.baseline, 3).c_str(), c.current.unit.c_str(), Fixed(c.ratio, 2).c_str(), p.c_str(),
                  verdict.c_str());
    out << line;
  }
  for (const Record& r : result.skipped)
    out << r.name << " " << r.device << " " << r.metric << ": skipped (" << r.skipped << ")\n";
  for (const Record& r : result.only_current) out << r.name << " " << r.device << " " << r.metric << ": not in the baseline\n";
  for (const Record& r : result.only_baseline) out << r.name << " " << r.device << " " << r.metric << ": not run\n";
  out << (result.any_regressed ? "FAIL" : "OK") << ": ratio = better/worse vs baseline (direction-aware), threshold "
      << Fixed(gate.threshold, 2) << "; a figure below it regresses when a Mann-Whitney U test over both sides' "
      << "samples gives p < " << Fixed(gate.alpha, 2) << " (or, with fewer than " << kMinSamplesForTest
      << " samples a side, on the threshold alone)\n";
}

void PrintPeerTable(const Report& ours, const Report& peers, std::ostream& out) {
  std::vector<RowKey> rows, peer_keys;
  std::map<RowKey, const Record*> mine = Medians(ours, &rows), theirs = Medians(peers, &peer_keys);
  std::map<RowKey, const Record*> first;
  for (const Record& r : ours.records)
    if (r.metric == "first") first.emplace(RowKey{r.name, r.device}, &r);
  std::vector<std::string> columns;  // peer devices, first-seen order
  std::set<std::string> ran_by_us;
  for (const RowKey& k : rows) ran_by_us.insert(k.first);
  for (const RowKey& k : peer_keys) {
    if (std::find(columns.begin(), columns.end(), k.second) == columns.end()) columns.push_back(k.second);
    if (!ran_by_us.count(k.first) && std::find(rows.begin(), rows.end(), RowKey{k.first, ""}) == rows.end())
      rows.push_back({k.first, ""});  // a workload only the peers ran
  }
  out << "| workload | device | unit | ours | first run (ms) |";
  for (const std::string& c : columns) out << " " << c << " |";
  out << "\n|---|---|---|---|---|";
  for (size_t i = 0; i < columns.size(); ++i) out << "---|";
  out << "\n";
  for (const auto& [name, device] : rows) {
    auto it = mine.find({name, device});
    const Record* o = it == mine.end() ? nullptr : it->second;
    std::string unit = o != nullptr ? o->unit : "";
    std::string figure = o == nullptr ? "not run" : !o->skipped.empty() ? "skipped" : Figure(o->value);
    auto f = first.find({name, device});
    for (const std::string& c : columns) {  // a workload only the peers ran: their unit
      auto p = theirs.find({name, c});
      if (unit.empty() && p != theirs.end()) unit = p->second->unit;
    }
    out << "| " << name << " | " << device << " | " << unit << " | " << figure << " | "
        << (f == first.end() ? "" : Figure(f->second->value)) << " |";
    for (const std::string& c : columns) {
      auto p = theirs.find({name, c});
      out << " " << PeerCell(o, p == theirs.end() ? nullptr : p->second) << " |";
    }
    out << "\n";
  }
  PrintSkipped(ours, peers, out);
  out << "\nRatio in brackets = ours / peer, direction-aware: > 1 means ours is better.\n";
}

}  // namespace tg::bench
