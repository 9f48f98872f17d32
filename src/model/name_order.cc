#include "model/name_order.h"

#include <cctype>

namespace muster {

namespace {
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

int NaturalCompare(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (IsDigit(a[i]) && IsDigit(b[j])) {
      size_t ie = i, je = j;
      while (ie < a.size() && IsDigit(a[ie])) ++ie;
      while (je < b.size() && IsDigit(b[je])) ++je;
      // Compare numerically without overflow: skip leading zeros, then by length, then digits.
      size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return (ie - is) < (je - js) ? -1 : 1;
      for (size_t k = 0; k < ie - is; ++k) {
        if (a[is + k] != b[js + k]) return a[is + k] < b[js + k] ? -1 : 1;
      }
      if (ie - i != je - j) return (ie - i) < (je - j) ? -1 : 1;  // less padding first
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
      ++i;
      ++j;
    }
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  return 0;
}

}  // namespace muster
