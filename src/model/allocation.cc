#include "model/allocation.h"

#include <algorithm>

namespace muster {

std::vector<int> WholeGpus(const NodeAllocation& a) {
  std::vector<int> out;
  for (const GpuShare& g : a.gpus) {
    if (g.whole()) out.push_back(g.index);
  }
  return out;
}

std::vector<int> GpuIndexes(const NodeAllocation& a) {
  std::vector<int> out;
  out.reserve(a.gpus.size());
  for (const GpuShare& g : a.gpus) out.push_back(g.index);
  return out;
}

const GpuShare* SharedGpu(const NodeAllocation& a) {
  for (const GpuShare& g : a.gpus) {
    if (!g.whole()) return &g;
  }
  return nullptr;
}

bool HoldsGpu(const NodeAllocation& a, int index) {
  return std::any_of(a.gpus.begin(), a.gpus.end(), [index](const GpuShare& g) { return g.index == index; });
}

double GpuUnits(const NodeAllocation& a) {
  double units = 0;
  for (const GpuShare& g : a.gpus) units += g.whole() ? 1.0 : g.milli / static_cast<double>(kMilliPerGpu);
  return units;
}

StoredGpus ToStoredGpus(const NodeAllocation& a) {
  StoredGpus s;
  for (const GpuShare& g : a.gpus) {
    if (g.whole()) {
      s.whole.push_back(g.index);
    } else {
      s.shared = g.index;
      s.shared_milli = g.milli;
    }
  }
  return s;
}

std::vector<GpuShare> FromStoredGpus(const StoredGpus& s) {
  std::vector<GpuShare> out;
  out.reserve(s.whole.size() + 1);
  for (int g : s.whole) out.push_back({g, kMilliPerGpu});
  if (s.shared >= 0) out.push_back({s.shared, s.shared_milli});
  std::sort(out.begin(), out.end(), [](const GpuShare& x, const GpuShare& y) { return x.index < y.index; });
  return out;
}

}  // namespace muster
