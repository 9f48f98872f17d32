#include "base/clock.h"

#include <chrono>

namespace muster {

int64_t SystemClock::NowSeconds() const { return NowMillis() / 1000; }

int64_t SystemClock::NowMillis() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace muster
