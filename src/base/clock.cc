#include "base/clock.h"

#include <sys/time.h>

#include <chrono>

namespace muster {

int64_t SystemClock::NowSeconds() const { return NowMillis() / 1000; }

int64_t SystemClock::NowMillis() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t GettimeofdayLatencyUs() {
  struct timeval tv {};
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) gettimeofday(&tv, nullptr);
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace muster
