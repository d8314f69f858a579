// onnx_conformance: runs ONNX backend node tests (model.onnx + test_data_set_0/{input,output}_N.pb per
// case directory) through tg::onnx and prints PASS/FAIL/UNSUPPORTED per case and a summary by op.
//   ./bazelw run //tools:onnx_conformance -- [DIR] [--device X] [--filter S] [--all] [--min-pass-rate P]
// DIR defaults to the suite tests/onnx/make_node_tests.py generates. Cases of the op classes tinygrad
// itself leaves out (strings, RNNs, Loop/Scan/sequences, ...) are excluded from the rate unless --all.
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"
#include "onnx/onnx_pb.h"
#include "tools/test_skip_report.h"

namespace fs = std::filesystem;

namespace {

constexpr char kUsage[] =
    "usage: onnx_conformance [DIR] [options]\n"
    "  DIR                 a directory of ONNX node-test cases (test_*/model.onnx), or one holding node/.\n"
    "                      Default: $TG_ONNX_NODE_TESTS, else ~/.cache/tinygrad-cc/onnx-node-tests/node\n"
    "                      (made by tests/onnx/make_node_tests.py)\n"
    "  --device X          run on device X (CPU, OPENCL, ...); default: the default device\n"
    "  --filter S          only cases whose name contains S\n"
    "  --all               also run the classes tinygrad excludes (counted in the rate)\n"
    "  --shard I/N         run every N-th case starting at I (bazel test sharding sets this itself)\n"
    "  --min-pass-rate P   exit 1 when passed / counted cases is below P (0..100); P1,P2,.. gives one\n"
    "                      floor per shard (the regression guard of tests/onnx). A run that counts\n"
    "                      no case exits 1 whatever the floor: nothing counted is no pass rate\n"
    "  --quiet             print only failures and the summary\n"
    "  --skip-if-missing   exit 0 with a SKIP line when DIR or the device does not exist\n"
    "Tolerance: |got - want| <= 1e-5 + 1e-3 |want| for floats (ONNX's rtol; atol looser than its 1e-7\n"
    "because our erf/sin approximations differ in the last bits), exact for ints and bools.\n";

// tinygrad's exclusion classes: ops and element types its ONNX runner does not attempt.
const std::set<std::string> kExcludedOps = {
    "StringNormalizer", "StringConcat", "StringSplit", "RegexFullMatch", "TfIdfVectorizer", "LabelEncoder",
    "SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase",
    "SequenceInsert", "SequenceLength", "SequenceMap", "SplitToSequence", "ConcatFromSequence", "Optional",
    "OptionalHasElement", "OptionalGetElement", "Bernoulli", "Det", "Col2Im", "GridSample", "DFT", "STFT",
    "MelWeightMatrix", "Unique", "NonMaxSuppression", "ReverseSequence", "RoiAlign", "DeformConv", "LpPool",
    "TreeEnsemble", "TreeEnsembleClassifier", "TreeEnsembleRegressor"};
const std::vector<std::string> kExcludedNameParts = {"string", "float8", "e4m3", "e5m2", "int4", "sequence",
                                                     "optional", "bernoulli"};

std::string DefaultDir() {
  if (const char* d = getenv("TG_ONNX_NODE_TESTS"); d && *d) return std::string(d) + "/node";
  std::string home = getenv("HOME") ? getenv("HOME") : "";
  if (home.empty())  // bazel test unsets HOME: the data still lives in the user's home
    if (const passwd* pw = getpwuid(getuid())) home = pw->pw_dir;
  return home + "/.cache/tinygrad-cc/onnx-node-tests/node";
}

void CollectOps(const onnx::GraphProto& g, std::vector<std::string>& ops) {
  for (const auto& n : g.node()) {
    ops.push_back(n.op_type());
    for (const auto& a : n.attribute())
      if (a.has_g()) CollectOps(a.g(), ops);
  }
}

struct Case {
  std::string name;
  std::string op;  // the op under test, for the summary
  bool excluded = false;
};

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

Case Describe(const fs::path& dir) {
  Case c{dir.filename().string(), "?", false};
  std::ifstream f(dir / "model.onnx", std::ios::binary);
  onnx::ModelProto m;
  std::vector<std::string> ops;
  if (f && m.ParseFromIstream(&f)) CollectOps(m.graph(), ops);
  // The op under test: the one whose name is the longest prefix of the case name (expanded cases
  // contain many ops), else the only one.
  std::string rest = Lower(c.name.substr(5));
  std::erase(rest, '_');
  size_t best = 0;
  for (const std::string& op : ops) {
    std::string lo = Lower(op);
    if (rest.rfind(lo, 0) == 0 && lo.size() > best) best = lo.size(), c.op = op;
    if (kExcludedOps.count(op)) c.excluded = true;
  }
  if (c.op == "?" && !ops.empty()) c.op = ops.size() == 1 ? ops[0] : ops.back();
  for (const std::string& part : kExcludedNameParts)
    if (Lower(c.name).find(part) != std::string::npos) c.excluded = true;
  for (const auto& in : m.graph().input())
    if (!in.type().has_tensor_type()) c.excluded = true;  // sequence / optional / map inputs
  return c;
}

// "" when |got| matches |want|, else why not.
std::string Compare(const tg::Tensor& got, const tg::Tensor& want) {
  if (got.dtype() != want.dtype()) return "dtype " + got.dtype().name() + ", want " + want.dtype().name();
  if (got.shape() != want.shape()) return "shape " + tg::ShapeString(got.shape()) + ", want " + tg::ShapeString(want.shape());
  std::vector<double> g = tg::onnx::values_as_double(got), w = tg::onnx::values_as_double(want);
  bool is_float = want.dtype().is_float();
  for (size_t i = 0; i < w.size(); ++i) {
    bool ok = is_float ? (std::isnan(w[i]) ? std::isnan(g[i])
                                           : (g[i] == w[i] || std::abs(g[i] - w[i]) <= 1e-5 + 1e-3 * std::abs(w[i])))
                       : g[i] == w[i];
    if (!ok) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "value [%zu] = %.8g, want %.8g", i, g[i], w[i]);
      return buf;
    }
  }
  return "";
}

enum class Result { kPass, kFail, kUnsupported };

Result RunCase(const fs::path& dir, const std::string& device, std::string* why) {
  try {
    tg::onnx::Model model = tg::onnx::load((dir / "model.onnx").string(), device);
    fs::path data = dir / "test_data_set_0";
    std::map<std::string, tg::Tensor> inputs;
    for (size_t i = 0; i < model.inputs().size(); ++i) {
      tg::Tensor t = tg::onnx::load_tensor((data / ("input_" + std::to_string(i) + ".pb")).string(), device);
      // python3-onnx 1.12 writes bfloat16 test data as its uint16 bit patterns.
      if (model.inputs()[i].dtype == tg::dtypes::bfloat16 && t.dtype() == tg::dtypes::uint16) t = t.bitcast(tg::dtypes::bfloat16);
      inputs.emplace(model.inputs()[i].name, t);
    }
    std::map<std::string, tg::Tensor> out = model.run(inputs);
    for (size_t i = 0; i < model.outputs().size(); ++i) {
      tg::Tensor want = tg::onnx::load_tensor((data / ("output_" + std::to_string(i) + ".pb")).string(), device);
      tg::Tensor got = out.at(model.outputs()[i].name);
      if (got.dtype() == tg::dtypes::bfloat16 && want.dtype() == tg::dtypes::uint16) got = got.bitcast(tg::dtypes::uint16);
      std::string diff = Compare(got, want);
      if (!diff.empty()) {
        *why = "output " + std::to_string(i) + ": " + diff;
        return Result::kFail;
      }
    }
    return Result::kPass;
  } catch (const tg::Error& e) {
    *why = e.what();
    std::string msg = *why;
    bool unsupported = msg.find("unsupported op") != std::string::npos || msg.find("is not supported") != std::string::npos ||
                       msg.find("tinygrad-cc runs tensor inputs only") != std::string::npos;
    return unsupported ? Result::kUnsupported : Result::kFail;
  } catch (const std::exception& e) {
    *why = std::string("std::exception: ") + e.what();
    return Result::kFail;
  }
}

struct Tally {
  int pass = 0, fail = 0, unsupported = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string dir, device, filter;
  bool all = false, quiet = false, skip_if_missing = false;
  std::string min_rates;
  long shard = 0, shards = 1;
  if (const char* n = getenv("TEST_TOTAL_SHARDS")) {
    shards = std::atol(n);
    shard = std::atol(getenv("TEST_SHARD_INDEX") ? getenv("TEST_SHARD_INDEX") : "0");
    if (const char* status = getenv("TEST_SHARD_STATUS_FILE")) std::ofstream(status).put('\n');
  }
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n%s", flag, kUsage); std::exit(2); }
      return argv[++i];
    };
    if (a == "-h" || a == "--help") { std::fputs(kUsage, stdout); return 0; }
    else if (a == "--device") device = value("--device");
    else if (a == "--filter") filter = value("--filter");
    else if (a == "--all") all = true;
    else if (a == "--quiet") quiet = true;
    else if (a == "--skip-if-missing") skip_if_missing = true;
    else if (a == "--min-pass-rate") min_rates = value("--min-pass-rate");
    else if (a == "--shard") {
      std::string s = value("--shard");
      if (std::sscanf(s.c_str(), "%ld/%ld", &shard, &shards) != 2 || shards < 1 || shard < 0 || shard >= shards) {
        std::fprintf(stderr, "--shard wants I/N with 0 <= I < N, got %s\n", s.c_str());
        return 2;
      }
    } else if (!a.empty() && a[0] == '-') { std::fprintf(stderr, "unknown option %s\n%s", a.c_str(), kUsage); return 2; }
    else dir = a;
  }
  if (dir.empty()) dir = DefaultDir();
  if (fs::is_directory(fs::path(dir) / "node")) dir = (fs::path(dir) / "node").string();
  if (!fs::is_directory(dir)) {
    std::printf("%s: no ONNX node tests in %s. Generate them (Debian's python3-onnx, no download) with:\n"
                "  tests/onnx/make_node_tests.py   (or point TG_ONNX_NODE_TESTS at a directory)\n",
                skip_if_missing ? "SKIP" : "ERROR", dir.c_str());
    if (skip_if_missing)
      tg::testing::ReportSkippedToBazel("onnx_conformance", "no ONNX node tests in " + dir +
                                                                ": run tests/onnx/make_node_tests.py (tools/setup.sh)");
    return skip_if_missing ? 0 : 2;
  }
  if (!device.empty()) {
    bool found = false;
    for (const tg::DeviceDescription& d : tg::available_devices()) found |= d.name == device || d.name == device + ":0";
    if (!found) {
      std::printf("%s: device %s is not available here (./bazelw run //tools:tg -- devices says why)\n",
                  skip_if_missing ? "SKIP" : "ERROR", device.c_str());
      if (skip_if_missing) tg::testing::ReportSkippedToBazel("onnx_conformance", "device " + device + " is not available here");
      return skip_if_missing ? 0 : 2;
    }
  }
  double min_rate = -1;
  if (!min_rates.empty()) {  // one floor, or one per shard
    std::vector<double> floors;
    for (size_t pos = 0; pos <= min_rates.size();) {
      size_t comma = std::min(min_rates.find(',', pos), min_rates.size());
      floors.push_back(std::atof(min_rates.substr(pos, comma - pos).c_str()));
      pos = comma + 1;
    }
    min_rate = floors.size() == 1 ? floors[0] : floors.at(static_cast<size_t>(shard) % floors.size());
  }
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && fs::exists(e.path() / "model.onnx") && e.path().filename().string().find(filter) != std::string::npos)
      cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());

  std::map<std::string, Tally> by_op;
  Tally total;
  int excluded = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (static_cast<long>(i % shards) != shard) continue;
    Case c = Describe(cases[i]);
    if (c.excluded && !all) {
      ++excluded;
      continue;
    }
    std::string why;
    auto t0 = std::chrono::steady_clock::now();
    Result r = RunCase(cases[i], device, &why);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    Tally& op = by_op[c.op];
    const char* label = r == Result::kPass ? "PASS" : r == Result::kFail ? "FAIL" : "UNSUPPORTED";
    (r == Result::kPass ? op.pass : r == Result::kFail ? op.fail : op.unsupported)++;
    (r == Result::kPass ? total.pass : r == Result::kFail ? total.fail : total.unsupported)++;
    if (!quiet || r != Result::kPass) {
      if (why.size() > 300) why = why.substr(0, 300) + "...";
      std::printf("%-11s %s [%s] %.0f ms%s%s\n", label, c.name.c_str(), c.op.c_str(), ms, why.empty() ? "" : ": ", why.c_str());
      std::fflush(stdout);
    }
  }
  std::printf("\nby op (pass/fail/unsupported):\n");
  for (const auto& [op, t] : by_op)
    if (t.fail || t.unsupported || !quiet) std::printf("  %-28s %3d %3d %3d\n", op.c_str(), t.pass, t.fail, t.unsupported);
  int counted = total.pass + total.fail + total.unsupported;
  double rate = counted ? 100.0 * total.pass / counted : 0.0;
  std::printf("\nsummary: %d passed, %d failed, %d unsupported of %d counted cases (%.1f%%); %d excluded "
              "(tinygrad's exclusion classes)%s\n",
              total.pass, total.fail, total.unsupported, counted, rate, excluded,
              shards > 1 ? (" [shard " + std::to_string(shard) + "/" + std::to_string(shards) + "]").c_str() : "");
  // Nothing counted is no evidence of conformance (an empty directory, a filter or shard that matches
  // nothing, every case excluded): a failure, never 100%.
  if (counted == 0) {
    std::printf("FAILED: no counted case in %s (filter \"%s\", %d excluded)\n", dir.c_str(), filter.c_str(), excluded);
    return 1;
  }
  if (min_rate >= 0 && rate < min_rate) {
    std::printf("FAILED: pass rate %.1f%% is below the recorded %.1f%%\n", rate, min_rate);
    return 1;
  }
  return 0;
}
