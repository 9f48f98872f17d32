#include "base/check.h"

#include <cstdlib>

#include "base/log.h"

namespace muster::internal {

CheckFailure::CheckFailure(const char* file, int line, const char* cond) {
  stream_ << file << ":" << line << ": CHECK failed: " << cond << " ";
}

CheckFailure::~CheckFailure() {
  LogError(stream_.str());
  FlushLog();
  std::abort();
}

}  // namespace muster::internal
