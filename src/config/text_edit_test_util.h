// Test helpers for the YAML files' tests (cluster files, queue files): a valid text edited in one
// place, and a table row of such an edit with the whole error message it must give.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace muster::test {

// `text` with the first occurrence of `from` replaced by `to`.
inline std::string Edit(const std::string& text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' is not in the text";
  if (at == std::string::npos) return text;
  return text.substr(0, at) + to + text.substr(at + from.size());
}

struct ErrorCase {
  const char* from;
  const char* to;
  const char* error;  // the whole message
};

}  // namespace muster::test
