#include "compiler/viz/viz_page.h"

#include <cstdio>
#include <fstream>
#include <mutex>
#include <set>

#include "absl/strings/str_replace.h"
#include "ir/env.h"
#include "nlohmann/json.hpp"

namespace tg::viz {
namespace {

#include "compiler/viz/viz_page_assets.inc"  // kVizScript, kVizStyle: viz_page.js and viz_page.css

using Json = nlohmann::json;

// Arrays, not objects: a training step's passes hold tens of thousands of nodes.
Json GraphJson(const TracedGraph& g) {
  Json nodes = Json::array();
  for (const TracedNode& n : g.nodes) nodes.push_back({n.op, n.dtype, n.arg, n.shape, n.src, n.changed ? 1 : 0});
  return {{"nodes", std::move(nodes)}, {"dropped", g.dropped}};
}

Json ScheduleJson(const ScheduleRecord& s) {
  Json items = Json::array(), buffers = Json::array();
  for (const ItemRecord& i : s.items)
    items.push_back({{"kind", i.kind}, {"name", i.name}, {"device", i.device}, {"buffers", i.buffers}});
  for (const BufferRecord& b : s.buffers)
    buffers.push_back({{"id", b.id}, {"device", b.device}, {"dtype", b.dtype}, {"numel", b.numel},
                       {"bytes", b.bytes}, {"first", b.first_use}, {"last", b.last_use}, {"block", b.block},
                       {"shared", b.shared}});
  return {{"seq", s.seq}, {"realize", s.realize}, {"items", std::move(items)}, {"buffers", std::move(buffers)}};
}

Json KernelJson(const KernelRecord& k) {
  std::vector<uint32_t> groups(k.dims.num_groups.begin(), k.dims.num_groups.end());
  std::vector<uint32_t> group_size(k.dims.group_size.begin(), k.dims.group_size.end());
  return {{"seq", k.seq},       {"realize", k.realize},     {"name", k.name},
          {"device", k.device}, {"dialect", k.dialect},     {"source", k.source},
          {"opts", k.opts},     {"num_groups", groups},     {"group_size", group_size}};
}

// Inside <script>, "</script" or "<!--" in a kernel's source would end or confuse the element; JSON may
// escape '<' anywhere it appears, which is only ever inside strings.
std::string ForScriptElement(const std::string& json) { return absl::StrReplaceAll(json, {{"<", "\\u003c"}}); }

std::string HtmlAttribute(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '&' ? "&amp;" : c == '"' ? "&quot;" : c == '<' ? "&lt;" : std::string(1, c);
  return out;
}

}  // namespace

std::string VizPageJson(const VizSnapshot& snapshot) {
  Json graphs = Json::array(), passes = Json::array(), schedules = Json::array(), kernels = Json::array();
  for (const TensorGraphRecord& g : snapshot.graphs)
    graphs.push_back({{"seq", g.seq}, {"realize", g.realize}, {"graph", GraphJson(g.graph)}});
  for (const PassStep& p : snapshot.passes)
    passes.push_back({{"seq", p.seq}, {"realize", p.realize}, {"group", p.group}, {"pass", p.pass},
                      {"rules_fired", p.rules_fired}, {"before", GraphJson(p.before)},
                      {"after", GraphJson(p.after)}});
  for (const ScheduleRecord& s : snapshot.schedules) schedules.push_back(ScheduleJson(s));
  for (const KernelRecord& k : snapshot.kernels) kernels.push_back(KernelJson(k));
  Json all = {{"graphs", std::move(graphs)},       {"passes", std::move(passes)},
              {"schedules", std::move(schedules)}, {"kernels", std::move(kernels)},
              {"dropped", snapshot.dropped}};
  return all.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string VizPageHtml(const VizSnapshot& snapshot, std::string_view initial_view) {
  std::string html;
  html += "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tinygrad-cc VIZ</title>\n<style>";
  html += kVizStyle;
  html += "</style></head>\n<body data-tg-view=\"" + HtmlAttribute(initial_view) + "\">\n";
  html += "<nav id=\"side\"></nav><main><div id=\"bar\"></div><div id=\"view\"></div></main>\n";
  html += "<script type=\"application/json\" id=\"tg-data\">" + ForScriptElement(VizPageJson(snapshot)) +
          "</script>\n<script>";
  html += kVizScript;
  html += "</script>\n</body></html>\n";
  return html;
}

std::string VizOutputPath() {
  std::string path = GetEnvString("TG_VIZ_OUT", "");
  if (path.empty()) path = "tg_viz.html";
  // Under `bazel run` the program starts in its runfiles tree; the user means their own directory.
  std::string user_dir = GetEnvString("BUILD_WORKING_DIRECTORY", "");
  return path[0] == '/' || user_dir.empty() ? path : user_dir + "/" + path;
}

std::string WriteVizPage() {
  std::string path = VizOutputPath();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << VizPageHtml(Snapshot());
  out.close();
  if (!out) {
    std::fprintf(stderr, "VIZ: cannot write %s (TG_VIZ_OUT names the page's file)\n", path.c_str());
    return "";
  }
  static std::mutex mu;
  static std::set<std::string>* announced = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mu);
  if (announced->insert(path).second) std::fprintf(stderr, "VIZ: wrote %s (open it in a browser)\n", path.c_str());
  return path;
}

}  // namespace tg::viz
