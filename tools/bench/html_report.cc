#include "tools/bench/html_report.h"

#include "tools/html_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace tg::bench {
namespace {

using tools::HtmlEscaped;

using RowKey = std::pair<std::string, std::string>;  // (workload, device)

constexpr int kLabelWidth = 110;  // the bar's name, left of it
constexpr int kBarSpan = 300;     // the longest bar in a group
constexpr int kBarHeight = 16;
constexpr int kRowHeight = 22;
constexpr int kGroupWidth = kLabelWidth + kBarSpan + 240;  // room for the longest label

const char* const kPeerColors[] = {"#e08a2c", "#c4561d", "#9c6bc2", "#d1a21a", "#5b8f3a", "#b04a7b"};

std::string Figure(double v) {
  char buf[64];
  double a = std::fabs(v);
  std::snprintf(buf, sizeof(buf), "%.*f", a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4, v);
  return buf;
}

// Two significant digits: 0.05, 0.0031, 0.9.
std::string Short(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2g", v);
  return buf;
}

std::string Ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2fx", r);
  return buf;
}

// The "median" records by (workload, device) in first-seen order.
std::vector<std::pair<RowKey, const Record*>> Medians(const Report* r) {
  std::vector<std::pair<RowKey, const Record*>> out;
  if (r == nullptr) return out;
  for (const Record& rec : r->records)
    if (rec.metric == "median" && rec.name != "*") out.push_back({{rec.name, rec.device}, &rec});
  return out;
}

const Record* Find(const std::vector<std::pair<RowKey, const Record*>>& v, const RowKey& key) {
  for (const auto& [k, r] : v)
    if (k == key) return r;
  return nullptr;
}

double BetterRatio(double ours, double other, bool lower_is_better) {
  if (!(ours > 0) || !(other > 0)) return 0;
  return lower_is_better ? other / ours : ours / other;
}

struct Bar {
  std::string label;  // "ours", "baseline", "torch 2T"
  std::string color;
  const Record* record = nullptr;
  std::string note;  // ratio label, verdict
  bool alarm = false;
};

// One workload's group: its bars on one scale, samples as ticks on the bars that have them.
std::string GroupSvg(const std::vector<Bar>& bars, int* bars_drawn) {
  double max = 0;
  for (const Bar& b : bars) {
    if (b.record->skipped.empty()) max = std::max(max, b.record->value);
    for (double s : b.record->samples) max = std::max(max, s);
  }
  std::ostringstream svg;
  int height = kRowHeight * static_cast<int>(bars.size()) + 6;
  svg << "<svg class=\"group\" width=\"" << kGroupWidth << "\" height=\"" << height << "\" viewBox=\"0 0 "
      << kGroupWidth << " " << height << "\">";
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    int y = 3 + kRowHeight * static_cast<int>(i);
    svg << "<text x=\"" << kLabelWidth - 6 << "\" y=\"" << y + 12 << "\" text-anchor=\"end\">" << HtmlEscaped(b.label)
        << "</text>";
    if (!b.record->skipped.empty()) {
      svg << "<text class=\"skip\" x=\"" << kLabelWidth << "\" y=\"" << y + 12 << "\">skipped: "
          << HtmlEscaped(b.record->skipped.substr(0, 80)) << "<title>" << HtmlEscaped(b.record->skipped)
          << "</title></text>";
      continue;
    }
    double w = max > 0 ? kBarSpan * b.record->value / max : 0;
    svg << "<rect class=\"bar\" x=\"" << kLabelWidth << "\" y=\"" << y << "\" width=\"" << std::max(1.0, w)
        << "\" height=\"" << kBarHeight << "\" fill=\"" << b.color << "\"><title>" << HtmlEscaped(b.label) << ": "
        << Figure(b.record->value) << " " << HtmlEscaped(b.record->unit) << "</title></rect>";
    ++*bars_drawn;
    for (double s : b.record->samples) {
      double x = kLabelWidth + (max > 0 ? kBarSpan * s / max : 0);
      svg << "<line class=\"sample\" x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << y + 2 << "\" y2=\""
          << y + kBarHeight - 2 << "\"/>";
    }
    svg << "<text x=\"" << kLabelWidth + w + 6 << "\" y=\"" << y + 12 << "\"" << (b.alarm ? " class=\"alarm\"" : "")
        << ">" << Figure(b.record->value) << (b.note.empty() ? "" : "  " + HtmlEscaped(b.note)) << "</text>";
  }
  svg << "</svg>";
  return svg.str();
}

// The bars of one workload; |verdict| gets the gate's verdict against the baseline ("" when fine).
std::vector<Bar> BarsOf(const RowKey& key, const Record* ours, const HtmlInputs& in,
                        const std::vector<std::pair<RowKey, const Record*>>& base,
                        const std::vector<std::pair<RowKey, const Record*>>& peers,
                        const std::vector<std::string>& peer_columns, std::string* verdict) {
  bool lower = LowerIsBetter(ours->unit);
  std::vector<Bar> bars = {{"ours", "#2f6db5", ours, "", false}};
  if (const Record* b = Find(base, key); b != nullptr) {
    Bar bar{"baseline", "#9aa3ad", b, "", false};
    if (ours->skipped.empty() && b->skipped.empty()) {
      Report one_ours{{}, {*ours}}, one_base{{}, {*b}};
      CompareResult c = Compare(one_ours, one_base, in.gate);
      if (!c.rows.empty()) {
        const Comparison& row = c.rows.front();
        bars[0].note = Ratio(row.ratio) + " vs baseline" + (row.tested ? ", p=" + Short(row.p_value) : "");
        bars[0].alarm = row.regressed;
        *verdict = row.verdict;
      }
    }
    bars.push_back(bar);
  }
  for (size_t i = 0; i < peer_columns.size(); ++i) {
    const Record* p = Find(peers, {key.first, peer_columns[i]});
    if (p == nullptr) continue;
    Bar bar{peer_columns[i], kPeerColors[i % (sizeof(kPeerColors) / sizeof(kPeerColors[0]))], p, "", false};
    if (ours->skipped.empty() && p->skipped.empty() && p->unit == ours->unit) {
      double r = BetterRatio(ours->value, p->value, lower);
      bar.note = "ours " + Ratio(r);
      bar.alarm = r < 1;
    }
    bars.push_back(bar);
  }
  return bars;
}

const char kStyle[] =
    "body{font:13px/1.4 'DejaVu Sans',Arial,sans-serif;margin:18px;color:#1d2329;background:#fff}"
    "h1{font-size:19px;margin:0 0 4px}.context{color:#5b6570;margin-bottom:12px}"
    ".grid{display:flex;flex-wrap:wrap;gap:10px 26px}.workload{border-top:1px solid #d8dde2;padding-top:6px}"
    ".workload h2{font-size:13px;margin:0 0 2px}.workload .unit{color:#5b6570;font-weight:normal}"
    "svg text{font:12px 'DejaVu Sans',Arial,sans-serif;fill:#1d2329}svg text.alarm{fill:#b3261e;font-weight:bold}"
    "svg text.skip{fill:#7a838c;font-style:italic}line.sample{stroke:#fff;stroke-opacity:.75;stroke-width:1.5}"
    ".legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:11px;height:11px;"
    "margin-right:4px;vertical-align:-1px}.notes{margin-top:14px;color:#5b6570}"
    ".verdict{color:#5b6570;margin:0 0 4px 110px}.verdict.alarm{color:#b3261e;font-weight:bold}";

}  // namespace

std::string BenchHtml(const HtmlInputs& in) {
  auto ours = Medians(in.ours), base = Medians(in.baseline), peers = Medians(in.peers);
  std::vector<std::string> peer_columns;
  for (const auto& [key, rec] : peers)
    if (std::find(peer_columns.begin(), peer_columns.end(), key.second) == peer_columns.end())
      peer_columns.push_back(key.second);
  std::ostringstream page;
  page << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << HtmlEscaped(in.title)
       << "</title><style>" << kStyle << "</style></head>\n<body>\n<h1>" << HtmlEscaped(in.title) << "</h1>\n";
  page << "<div class=\"context\">";
  for (const auto& [k, v] : in.ours->context) page << HtmlEscaped(k) << ": " << HtmlEscaped(v) << " &nbsp; ";
  page << "</div>\n<div class=\"legend\"><span><i style=\"background:#2f6db5\"></i>ours</span>";
  if (in.baseline != nullptr) page << "<span><i style=\"background:#9aa3ad\"></i>baseline</span>";
  for (size_t i = 0; i < peer_columns.size(); ++i)
    page << "<span><i style=\"background:" << kPeerColors[i % (sizeof(kPeerColors) / sizeof(kPeerColors[0]))]
         << "\"></i>" << HtmlEscaped(peer_columns[i]) << "</span>";
  page << "<span>ticks on a bar: each timed run</span></div>\n<div class=\"grid\">\n";
  int bars_drawn = 0;
  for (const auto& [key, rec] : ours) {
    std::string direction = LowerIsBetter(rec->unit) ? "lower is better" : "higher is better";
    std::string verdict;
    std::vector<Bar> bars = BarsOf(key, rec, in, base, peers, peer_columns, &verdict);
    page << "<div class=\"workload\"><h2>" << HtmlEscaped(key.first) << " <span class=\"unit\">" << HtmlEscaped(key.second)
         << " &middot; " << HtmlEscaped(rec->unit) << ", " << direction << "</span></h2>" << GroupSvg(bars, &bars_drawn);
    if (!verdict.empty())
      page << "<div class=\"verdict" << (bars[0].alarm ? " alarm" : "") << "\">" << HtmlEscaped(verdict) << "</div>";
    page << "</div>\n";
  }
  page << "</div>\n<p class=\"notes\">Ratios are direction-aware: above 1 means ours is better, for times too. "
       << "A figure regresses against the baseline when its ratio is below " << Short(in.gate.threshold)
       << " and a Mann-Whitney U test over both runs' samples gives p &lt; " << Short(in.gate.alpha)
       << " (with fewer than " << kMinSamplesForTest << " samples a side, on the ratio alone).</p>\n";
  page << "<script>document.body.dataset.tgRendered='" << bars_drawn << "';</script>\n</body></html>\n";
  return page.str();
}

}  // namespace tg::bench
