#include "examples/bank/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"

namespace cairn::examples::bank {

ProgressBar::ProgressBar(int64_t total, std::function<int64_t()> done,
                         std::string label)
    : total_(total),
      done_(std::move(done)),
      label_(label.empty() ? "" : label + " "),
      drawer_([this] {
        base::MutexLock lock(&mu_);
        while (!stopping_) {
          Draw();
          const absl::Time next = absl::Now() + absl::Milliseconds(100);
          while (!stopping_) {
            if (wake_.WaitWithDeadline(&mu_, next)) break;
          }
        }
      }) {}

ProgressBar::~ProgressBar() {
  {
    base::MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  drawer_.join();
  Draw();
  std::fputc('\n', stderr);
}

bool ProgressBar::OnTerminal() { return ::isatty(STDERR_FILENO) == 1; }

void ProgressBar::Draw() {
  constexpr int kWidth = 40;
  const int64_t done = done_();
  // Clamped: what is done may pass the total that was expected (a
  // recovery that started over counts its events again).
  const double fraction = std::clamp(
      total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1,
      0.0, 1.0);
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(filled, '#');
  bar.append(kWidth - filled, '-');
  std::fprintf(stderr, "\r%s[%s] %3d%%  %lld/%lld", label_.c_str(), bar.c_str(),
               static_cast<int>(fraction * 100), static_cast<long long>(done),
               static_cast<long long>(total_));
  std::fflush(stderr);
}

}  // namespace cairn::examples::bank
