#include "base/pretty_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

namespace muster {

namespace bj = boost::json;

namespace {

// The UTF-8 sequence at s[i]: its length when it is valid (1 to 4); else 0, and in *skip how many
// bytes one U+FFFD replaces, as nlohmann's decoder does: the bytes before the first that does not
// fit (that byte is read again as the start of the next sequence), a stray byte alone, or all that
// is left when the string ends inside a sequence.
size_t Utf8Length(std::string_view s, size_t i, size_t* skip) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    *skip = 1;
    return 0;
  }
  for (size_t k = 1; k < n; ++k) {
    if (i + k >= s.size()) {
      *skip = s.size() - i;
      return 0;
    }
    const unsigned char min = k == 1 ? lo : 0x80, max = k == 1 ? hi : 0xBF;
    if (b(i + k) < min || b(i + k) > max) {
      *skip = k;
      return 0;
    }
  }
  return n;
}

void AppendString(std::string_view s, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else if (size_t skip = 0, n = Utf8Length(s, i, &skip); n == 0) {
          out += "\xEF\xBF\xBD";  // U+FFFD
          i += skip;
          continue;
        } else {
          out.append(s.substr(i, n));
          i += n;
          continue;
        }
    }
    ++i;
  }
  out += '"';
}

}  // namespace

bool IsUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    size_t skip = 0;
    const size_t n = Utf8Length(text, i, &skip);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string JsonDoubleText(double x) {
  if (!std::isfinite(x)) return "null";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  // The shortest digits that read back as x, and the decimal exponent: d.ddd e±N.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  std::string out;
  if (sci.front() == '-') {
    out += '-';
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  const int exp10 = std::stoi(std::string(sci.substr(e + 1)));
  // nlohmann's format_buffer: k digits, the point after n of them; fixed notation for n in
  // (-4, 15], else d.ddde±XX.
  const int k = static_cast<int>(digits.size());
  const int n = exp10 + 1;
  constexpr int kMinExp = -4, kMaxExp = 15;
  if (k <= n && n <= kMaxExp) {
    out += digits;
    out.append(static_cast<size_t>(n - k), '0');
    out += ".0";
  } else if (0 < n && n <= kMaxExp) {
    out += digits.substr(0, static_cast<size_t>(n));
    out += '.';
    out += digits.substr(static_cast<size_t>(n));
  } else if (kMinExp < n && n <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-n), '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out += digits.substr(1);
    }
    out += 'e';
    const int pe = n - 1;
    out += pe < 0 ? '-' : '+';
    const int a = pe < 0 ? -pe : pe;
    if (a < 10) out += '0';
    out += std::to_string(a);
  }
  return out;
}

void AppendPrettyJson(const bj::value& v, int indent, std::string& out) {
  // indent < 0: one line (nlohmann's dump()); else `indent` more spaces per level.
  const bool flat = indent < 0;
  const auto pad_at = [&](int level) { out.append(static_cast<size_t>(level * indent), ' '); };
  struct Walk {
    const bool flat;
    std::string& out;
    const decltype(pad_at)& pad;
    void operator()(const bj::value& v, int level) const {
      switch (v.kind()) {
        case bj::kind::object: {
          const bj::object& o = v.get_object();
          if (o.empty()) {
            out += "{}";
            return;
          }
          std::vector<const bj::key_value_pair*> kv;
          kv.reserve(o.size());
          for (const bj::key_value_pair& e : o) kv.push_back(&e);
          std::sort(kv.begin(), kv.end(), [](const auto* a, const auto* b) { return a->key() < b->key(); });
          out += flat ? "{" : "{\n";
          for (size_t k = 0; k < kv.size(); ++k) {
            if (!flat) pad(level + 1);
            AppendString(kv[k]->key(), out);
            out += flat ? ":" : ": ";
            (*this)(kv[k]->value(), level + 1);
            if (k + 1 < kv.size()) out += ',';
            if (!flat) out += '\n';
          }
          if (!flat) pad(level);
          out += '}';
          return;
        }
        case bj::kind::array: {
          const bj::array& a = v.get_array();
          if (a.empty()) {
            out += "[]";
            return;
          }
          out += flat ? "[" : "[\n";
          for (size_t k = 0; k < a.size(); ++k) {
            if (!flat) pad(level + 1);
            (*this)(a[k], level + 1);
            if (k + 1 < a.size()) out += ',';
            if (!flat) out += '\n';
          }
          if (!flat) pad(level);
          out += ']';
          return;
        }
        case bj::kind::string:
          AppendString(v.get_string(), out);
          return;
        case bj::kind::double_:
          out += JsonDoubleText(v.get_double());
          return;
        default:
          out += bj::serialize(v);  // integers, booleans, null
      }
    }
  };
  Walk{flat, out, pad_at}(v, 0);
}

std::string PrettyJson(const bj::value& v, int indent) {
  std::string out;
  AppendPrettyJson(v, indent, out);
  return out;
}

}  // namespace muster
