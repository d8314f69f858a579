// ExpectErrorContaining: a call must throw tg::Error, and its message must name |part| (what a user reads).
#ifndef TG_TESTS_FRONTEND_EXPECT_ERROR_H_
#define TG_TESTS_FRONTEND_EXPECT_ERROR_H_

#include <functional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "frontend/tg.h"

namespace tg::testing {

inline void ExpectErrorContaining(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    FAIL() << "no error; wanted one saying " << part;
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(part));
  }
}

}  // namespace tg::testing

#endif  // TG_TESTS_FRONTEND_EXPECT_ERROR_H_
