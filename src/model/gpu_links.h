// GpuLinkMatrix: the intra-node GPU interconnect as NVLink link counts per GPU pair (symmetric,
// zero diagonal; 0 = no NVLink, traffic goes over PCIe/SMP). An NVSwitch system is all-to-all with
// the same count for every pair. Plain value type; the named layouts below are real machines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace muster {

class GpuLinkMatrix {
 public:
  GpuLinkMatrix() = default;
  explicit GpuLinkMatrix(int num_gpus);

  int size() const { return n_; }
  int links(int a, int b) const { return links_[a * n_ + b]; }
  void set_links(int a, int b, int count);  // sets both (a,b) and (b,a)
  bool nvswitch() const { return nvswitch_; }

  // Sum of link counts over all unordered pairs of the GPUs whose bits are set in `mask`.
  int LinkSum(uint64_t mask) const;

  // Named layouts (num_gpus GPUs each):
  // all-to-all through NVSwitch (DGX A100/H100, HGX): every pair `links_per_pair`.
  static GpuLinkMatrix NvSwitch(int num_gpus, int links_per_pair = 12);
  // islands of `island_size` GPUs fully connected by NVLink bridges, none across islands.
  static GpuLinkMatrix Islands(int num_gpus, int island_size, int links_per_pair = 2);
  // PCIe only: no NVLink at all.
  static GpuLinkMatrix PcieOnly(int num_gpus);
  // DGX-1 (V100) hybrid cube-mesh: two fully connected quads (0-3, 4-7) with mixed 1/2-link
  // pairs plus one cross link per GPU (0-4, 1-5, 2-6, 3-7); 6 links per GPU.
  static GpuLinkMatrix Dgx1HybridCubeMesh();

  // Parses a layout name as written in config files: "nvswitch", "pcie", "islands:4", "dgx1",
  // or an explicit matrix "0,2,2,1;2,0,1,2;..." (rows separated by ';'). `num_gpus` sizes the
  // named ones; an explicit matrix must be num_gpus x num_gpus and symmetric.
  static StatusOr<GpuLinkMatrix> Parse(const std::string& spec, int num_gpus);

  friend bool operator==(const GpuLinkMatrix&, const GpuLinkMatrix&) = default;

 private:
  int n_ = 0;
  bool nvswitch_ = false;
  std::vector<uint8_t> links_;
};

}  // namespace muster
