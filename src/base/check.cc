#include "base/check.h"

#include <cstdio>
#include <cstdlib>

namespace muster::internal {

CheckFailure::CheckFailure(const char* file, int line, const char* cond) {
  stream_ << file << ":" << line << ": CHECK failed: " << cond << " ";
}

CheckFailure::~CheckFailure() {
  std::fprintf(stderr, "%s\n", stream_.str().c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace muster::internal
