// DynamicBitset: a fixed-size set of small integers (node indexes) with fast word-wise scans.
// Plain value type.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace muster {

class DynamicBitset {
 public:
  DynamicBitset() = default;
  explicit DynamicBitset(int size, bool value = false)
      : size_(size), words_((size + 63) / 64, value ? ~uint64_t{0} : 0) {
    if (value) TrimTail();
  }

  int size() const { return size_; }
  bool test(int i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
  void set(int i) { words_[i >> 6] |= uint64_t{1} << (i & 63); }
  void reset(int i) { words_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  void assign(int i, bool v) { v ? set(i) : reset(i); }
  int count() const {
    int c = 0;
    for (uint64_t w : words_) c += std::popcount(w);
    return c;
  }
  bool any() const {
    for (uint64_t w : words_) if (w) return true;
    return false;
  }
  DynamicBitset& operator&=(const DynamicBitset& o) {
    for (std::size_t k = 0; k < words_.size(); ++k) words_[k] &= o.words_[k];
    return *this;
  }
  DynamicBitset& operator|=(const DynamicBitset& o) {
    for (std::size_t k = 0; k < words_.size(); ++k) words_[k] |= o.words_[k];
    return *this;
  }
  DynamicBitset& AndNot(const DynamicBitset& o) {
    for (std::size_t k = 0; k < words_.size(); ++k) words_[k] &= ~o.words_[k];
    return *this;
  }
  const std::vector<uint64_t>& words() const { return words_; }

  // Calls f(i) for every set bit in ascending order; stops early when f returns false.
  template <typename F>
  bool ForEach(F&& f) const {
    for (std::size_t k = 0; k < words_.size(); ++k) {
      uint64_t w = words_[k];
      while (w) {
        int i = static_cast<int>(k * 64 + std::countr_zero(w));
        if (!f(i)) return false;
        w &= w - 1;
      }
    }
    return true;
  }
  // Same, over the intersection with `mask` (same size), without materializing it.
  template <typename F>
  bool ForEachAnd(const DynamicBitset& mask, F&& f) const {
    for (std::size_t k = 0; k < words_.size(); ++k) {
      uint64_t w = words_[k] & mask.words_[k];
      while (w) {
        int i = static_cast<int>(k * 64 + std::countr_zero(w));
        if (!f(i)) return false;
        w &= w - 1;
      }
    }
    return true;
  }

  friend bool operator==(const DynamicBitset&, const DynamicBitset&) = default;

 private:
  void TrimTail() {
    if (size_ % 64 != 0 && !words_.empty()) words_.back() &= (uint64_t{1} << (size_ % 64)) - 1;
  }
  int size_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace muster
