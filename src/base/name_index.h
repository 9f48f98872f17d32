// NameIndex: names to small non-negative ints, for the hot lookups of node names (every running
// job's allocation, in every scheduling pass). Open addressing with linear probing over a
// power-of-two table kept at most half full, and FNV-1a hashes: finding a short name costs a few
// dozen instructions, about a third of std::unordered_map's (a hash over the bytes, a modulo by a
// prime, a node to chase).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace muster {

class NameIndex {
 public:
  // Maps `name` to `value` (>= 0), replacing what it had.
  void Insert(std::string_view name, int value);
  // The value of `name`, or -1.
  int Find(std::string_view name) const {
    if (slots_.empty()) return -1;
    for (size_t i = Hash(name) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value < 0) return -1;
      if (s.name == name) return s.value;
    }
  }
  size_t size() const { return count_; }

 private:
  struct Slot {
    std::string name;
    int value = -1;  // -1: empty
  };
  static size_t Hash(std::string_view name) {
    uint64_t h = 14695981039346656037ull;
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t count_ = 0;
};

}  // namespace muster
