// The golden test of one op family: every case of data/<kGoldenFamily>.golden through the family's
// registry (ops_<family>.cc), forward and backward, plus float64 finite differences where marked.
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "frontend/tg.h"
#include "tests/golden/golden.h"

namespace tg::golden {

// Defined by the family's ops_<family>.cc.
extern const char kGoldenFamily[];
const Registry& FamilyOps();

namespace {

// The bar is CPU; TG_DEVICE, when set, replays the same cases on another device.
const bool kDeviceChosen = setenv("TG_DEVICE", "CPU", /*overwrite=*/0) == 0;

const File& Data() {
  static const File* file = new File(Load(DataPath(kGoldenFamily)));
  return *file;
}

std::vector<size_t> CaseIndices(bool fd_only) {
  std::vector<size_t> out;
  for (size_t i = 0; i < Data().cases.size(); ++i)
    if (!fd_only || Data().cases[i].fd) out.push_back(i);
  return out;
}

std::string CaseName(const ::testing::TestParamInfo<size_t>& info) { return Data().cases[info.param].name; }

class Golden : public ::testing::TestWithParam<size_t> {};
class FiniteDifference : public ::testing::TestWithParam<size_t> {};

// A case in a dtype the device cannot compute in is skipped with that reason (the device refuses
// it with a tg::Error: tests/frontend/dtype_test checks that).
std::string UnsupportedDtype(const Case& c) {
  std::string device = tg::default_device();
  std::vector<DType> used;
  for (const InputSpec& in : c.inputs) used.push_back(in.dtype);
  for (const OutputSpec& out : c.outputs)
    if (out.dtype) used.push_back(*out.dtype);
  for (DType d : used)
    if (!tg::device_supports(device, d)) return device + " has no " + d.name() + " arithmetic";
  return "";
}

TEST_P(Golden, MatchesPyTorch) {
  const Case& c = Data().cases[GetParam()];
  if (!c.skip.empty()) GTEST_SKIP() << c.skip;
  if (std::string why = UnsupportedDtype(c); !why.empty()) GTEST_SKIP() << why;
  SCOPED_TRACE("case " + c.name + " (op " + c.op + ")");
  RunCase(Data(), c, FamilyOps());
}

TEST_P(FiniteDifference, GradientMatchesCentralDifferences) {
  const Case& c = Data().cases[GetParam()];
  if (!c.skip.empty()) GTEST_SKIP() << c.skip;
  if (!tg::device_supports(tg::default_device(), dtypes::float64)) GTEST_SKIP() << "no float64 on this device";
  SCOPED_TRACE("case " + c.name + " (op " + c.op + ")");
  RunFiniteDifference(Data(), c, FamilyOps());
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, ::testing::ValuesIn(CaseIndices(false)), CaseName);
INSTANTIATE_TEST_SUITE_P(Cases, FiniteDifference, ::testing::ValuesIn(CaseIndices(true)), CaseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FiniteDifference);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Golden);  // a new family may start empty

TEST(GoldenFile, EveryOpIsRegistered) {
  for (const Case& c : Data().cases) EXPECT_TRUE(FamilyOps().count(c.op)) << c.name << ": op " << c.op;
}

}  // namespace
}  // namespace tg::golden
