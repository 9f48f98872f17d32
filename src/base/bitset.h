// DynamicBitset: a fixed-size set of small integers (node indexes) with fast word-wise scans.
// Plain value type.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <memory>
#include <span>
#include <vector>

namespace muster {

class DynamicBitset {
 public:
  DynamicBitset() = default;
  explicit DynamicBitset(int size, bool value = false) : size_(size), nwords_((size + 63) / 64) {
    Allocate();
    std::fill(data(), data() + nwords_, value ? ~uint64_t{0} : 0);
    if (value) TrimTail();
  }
  DynamicBitset(const DynamicBitset& o) : size_(o.size_), nwords_(o.nwords_) {
    Allocate();
    std::copy(o.data(), o.data() + nwords_, data());
  }
  DynamicBitset(DynamicBitset&& o) noexcept : size_(o.size_), nwords_(o.nwords_), heap_(std::move(o.heap_)) {
    std::copy(o.inline_, o.inline_ + kInline, inline_);
    o.size_ = o.nwords_ = 0;
  }
  DynamicBitset& operator=(const DynamicBitset& o) {
    if (this == &o) return *this;
    if (nwords_ != o.nwords_) {
      nwords_ = o.nwords_;
      heap_.reset();
      Allocate();
    }
    size_ = o.size_;
    std::copy(o.data(), o.data() + nwords_, data());
    return *this;
  }
  DynamicBitset& operator=(DynamicBitset&& o) noexcept {
    if (this == &o) return *this;
    size_ = o.size_;
    nwords_ = o.nwords_;
    heap_ = std::move(o.heap_);
    std::copy(o.inline_, o.inline_ + kInline, inline_);
    o.size_ = o.nwords_ = 0;
    return *this;
  }

  int size() const { return size_; }
  bool test(int i) const { return (data()[i >> 6] >> (i & 63)) & 1; }
  void set(int i) { data()[i >> 6] |= uint64_t{1} << (i & 63); }
  void reset(int i) { data()[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  void assign(int i, bool v) { v ? set(i) : reset(i); }
  int count() const {
    int c = 0;
    for (uint64_t w : words()) c += std::popcount(w);
    return c;
  }
  bool any() const {
    for (uint64_t w : words()) if (w) return true;
    return false;
  }
  DynamicBitset& operator&=(const DynamicBitset& o) {
    uint64_t* w = data();
    const uint64_t* x = o.data();
    for (int k = 0; k < nwords_; ++k) w[k] &= x[k];
    return *this;
  }
  DynamicBitset& operator|=(const DynamicBitset& o) {
    uint64_t* w = data();
    const uint64_t* x = o.data();
    for (int k = 0; k < nwords_; ++k) w[k] |= x[k];
    return *this;
  }
  DynamicBitset& AndNot(const DynamicBitset& o) {
    uint64_t* w = data();
    const uint64_t* x = o.data();
    for (int k = 0; k < nwords_; ++k) w[k] &= ~x[k];
    return *this;
  }
  std::span<const uint64_t> words() const { return {data(), static_cast<size_t>(nwords_)}; }

  // Calls f(i) for every set bit in ascending order; stops early when f returns false.
  template <typename F>
  bool ForEach(F&& f) const {
    const uint64_t* words = data();
    for (int k = 0; k < nwords_; ++k) {
      uint64_t w = words[k];
      while (w) {
        int i = k * 64 + std::countr_zero(w);
        if (!f(i)) return false;
        w &= w - 1;
      }
    }
    return true;
  }
  // Same, over the intersection with `mask` (same size), without materializing it.
  template <typename F>
  bool ForEachAnd(const DynamicBitset& mask, F&& f) const {
    const uint64_t* words = data();
    const uint64_t* m = mask.data();
    for (int k = 0; k < nwords_; ++k) {
      uint64_t w = words[k] & m[k];
      while (w) {
        int i = k * 64 + std::countr_zero(w);
        if (!f(i)) return false;
        w &= w - 1;
      }
    }
    return true;
  }

  friend bool operator==(const DynamicBitset& a, const DynamicBitset& b) {
    return a.size_ == b.size_ && std::equal(a.data(), a.data() + a.nwords_, b.data());
  }

 private:
  // Sets of up to 256 (nodes of most clusters) are held inline: a scheduling pass makes and
  // copies many (plans, candidate filters, a preemption search's nodes), and allocating each was
  // a good part of a pass.
  static constexpr int kInline = 4;
  void Allocate() {
    if (nwords_ > kInline) heap_ = std::make_unique<uint64_t[]>(static_cast<size_t>(nwords_));
  }
  uint64_t* data() { return nwords_ > kInline ? heap_.get() : inline_; }
  const uint64_t* data() const { return nwords_ > kInline ? heap_.get() : inline_; }
  void TrimTail() {
    if (size_ % 64 != 0 && nwords_ > 0) data()[nwords_ - 1] &= (uint64_t{1} << (size_ % 64)) - 1;
  }
  int size_ = 0;
  int nwords_ = 0;
  uint64_t inline_[kInline] = {};
  std::unique_ptr<uint64_t[]> heap_;
};

}  // namespace muster
