#include "base/name_index.h"

namespace muster {

void NameIndex::Insert(std::string_view name, int value) {
  if ((count_ + 1) * 2 > slots_.size()) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    count_ = 0;
    for (Slot& s : old) {
      if (s.value >= 0) Insert(s.name, s.value);
    }
  }
  for (size_t i = Hash(name) & mask_;; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.value < 0) {
      s.name = std::string(name);
      s.value = value;
      ++count_;
      return;
    }
    if (s.name == name) {
      s.value = value;
      return;
    }
  }
}

}  // namespace muster
