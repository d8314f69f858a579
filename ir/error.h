// tg::Error: the one exception type for errors a user can cause (bad shape, bad axis, bad name).
// Thrown anywhere along the walk in docs/architecture.md and caught, if at all, by the application.
#pragma once

#include <stdexcept>

namespace tg {

// Internals that expect failure use absl::Status and convert once, at the public API, into this.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tg
