// html_report.h: `tg bench --html`: the suite's report drawn as one self-contained HTML page (inline SVG
// and CSS, no script needed to draw, nothing fetched), one group of bars per workload: ours, the
// baseline's, each peer's, with ratio labels, so a CI artifact or a README picture shows the suite at a
// glance. Pure data to text, unit-tested; tested in a headless browser too.
#ifndef TG_TOOLS_BENCH_HTML_REPORT_H_
#define TG_TOOLS_BENCH_HTML_REPORT_H_

#include <string>

#include "tools/bench/report.h"

namespace tg::bench {

struct HtmlInputs {
  const Report* ours = nullptr;      // required
  const Report* baseline = nullptr;  // optional: tg bench --compare's baseline
  const Report* peers = nullptr;     // optional: the merged peer reports (torch, torch 2T, ort 1T, ...)
  GateOptions gate;                  // for the baseline's verdicts
  std::string title = "tinygrad-cc benchmark suite";
};

// The page. Each workload's bars share one scale (units differ between workloads); a ratio label is
// direction-aware (> 1 = ours better, for times too); a regressed figure is marked with the gate's
// verdict; skipped records show their reason instead of a bar. <body data-tg-rendered> holds the
// number of bars drawn.
std::string BenchHtml(const HtmlInputs& in);

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_HTML_REPORT_H_
