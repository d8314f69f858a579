// Progress line (apps/progress.h). On a terminal the line is redrawn at most ~10 times a second, since
// printing every step of a fast loop would cost more than the step; in a log, about ten lines per bar.
#include "apps/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace tg::apps {

Progress::Progress(std::string label, int64_t total)
    : label_(std::move(label)), total_(std::max<int64_t>(total, 1)), start_(std::chrono::steady_clock::now()),
      last_draw_(start_), tty_(isatty(fileno(stdout))) {}

double Progress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::Update(int64_t done, const std::vector<std::pair<std::string, double>>& figures) {
  done_ = done;
  figures_ = figures;
  auto now = std::chrono::steady_clock::now();
  bool due = tty_ ? now - last_draw_ > std::chrono::milliseconds(100)
                  : done * 10 / total_ != last_printed_ * 10 / total_ || last_printed_ < 0;
  if (!due) return;
  last_draw_ = now;
  last_printed_ = done;
  Draw();
}

void Progress::Finish() {
  if (tty_ || last_printed_ != done_) Draw();
  if (tty_) std::printf("\n");
  std::fflush(stdout);
}

void Progress::Draw() const {
  constexpr int kWidth = 20;
  int filled = static_cast<int>(kWidth * done_ / total_);
  std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
  std::string text;
  for (const auto& [name, value] : figures_) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "  %s %.4f", name.c_str(), value);
    text += buf;
  }
  std::printf("%s%s [%s] %lld/%lld%s  %.2f steps/s  %.1fs%s", tty_ ? "\r" : "", label_.c_str(), bar.c_str(),
              static_cast<long long>(done_), static_cast<long long>(total_), text.c_str(), steps_per_second(),
              seconds(), tty_ ? "\033[K" : "\n");
  std::fflush(stdout);
}

}  // namespace tg::apps
