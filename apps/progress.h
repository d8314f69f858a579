// A one-line training progress display for the apps: step count, named figures (loss, accuracy) and
// steps/s, redrawn in place on a terminal and printed every ~10% otherwise. Host-side only (README.md).
#ifndef TG_APPS_PROGRESS_H_
#define TG_APPS_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tg::apps {

// Usage: Progress bar("epoch 1", steps); for (...) { ...; bar.Update(i + 1, {{"loss", l}}); } bar.Finish();
class Progress {
 public:
  Progress(std::string label, int64_t total);
  // Records that |done| of the total steps are done, with the latest |figures|; redraws when due.
  void Update(int64_t done, const std::vector<std::pair<std::string, double>>& figures);
  // Draws the last state and ends the line.
  void Finish();
  double seconds() const;
  double steps_per_second() const { return done_ / std::max(seconds(), 1e-9); }

 private:
  void Draw() const;

  std::string label_;
  int64_t total_, done_ = 0, last_printed_ = -1;
  std::vector<std::pair<std::string, double>> figures_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool tty_;
};

}  // namespace tg::apps

#endif  // TG_APPS_PROGRESS_H_
