// MUSTER_CHECK(cond) << "context": an always-on invariant check. On failure prints file:line, the
// condition and the streamed context to stderr and aborts. Only for invariants: user input must
// never be able to trip one (return a Status instead).
#pragma once

#include <sstream>

namespace muster::internal {

class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* cond);
  [[noreturn]] ~CheckFailure();
  template <typename T>
  CheckFailure& operator<<(const T& v) {
    stream_ << v;
    return *this;
  }

 private:
  std::ostringstream stream_;
};

// Lets the macro be an expression whose streamed operands are evaluated only on failure.
struct Voidify {
  void operator&(CheckFailure&) {}
};

}  // namespace muster::internal

#define MUSTER_CHECK(cond)                     \
  (cond) ? (void)0                             \
         : ::muster::internal::Voidify() &     \
               ::muster::internal::CheckFailure(__FILE__, __LINE__, #cond)
