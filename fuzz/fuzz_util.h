// Shared by the fuzz targets (libFuzzer, built with clang in the sanitizer build; bench/fuzz.sh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace muster::fuzz {

inline std::string Text(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

// Splits at `sep` (for inputs that hold several files or fields).
inline std::vector<std::string> Split(std::string_view text, std::string_view sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(sep, start);
    if (at == std::string_view::npos) {
      parts.emplace_back(text.substr(start));
      return parts;
    }
    parts.emplace_back(text.substr(start, at - start));
    start = at + sep.size();
  }
}

// Whitespace-separated words (an argument vector).
inline std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  std::string w;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t') {
      if (!w.empty()) words.push_back(std::move(w));
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) words.push_back(std::move(w));
  return words;
}

}  // namespace muster::fuzz
