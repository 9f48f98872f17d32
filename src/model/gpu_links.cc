#include "model/gpu_links.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/check.h"

namespace muster {
namespace {

// Masks are 64-bit (see gpu_picker.h), so a node's matrix never needs more than 64 GPUs.
constexpr int kMaxGpus = 64;
constexpr int kMaxLinks = 255;  // stored as uint8_t

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

// Parses a whole token as a decimal integer (optional leading '-'); false if anything else is there.
// Values too large for int64 saturate, which is enough to report "exceeds"/"negative".
bool ParseInt(std::string_view token, int64_t* out) {
  if (token.empty()) return false;
  bool negative = token.front() == '-';
  std::string_view digits = negative ? token.substr(1) : token;
  if (digits.empty()) return false;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range) value = INT64_MAX;
  else if (ec != std::errc() || ptr != digits.data() + digits.size()) return false;
  *out = negative ? -value : value;
  return true;
}

StatusOr<GpuLinkMatrix> ParseMatrix(std::string_view spec, int num_gpus) {
  std::vector<std::string_view> rows = Split(spec, ';');
  if (static_cast<int>(rows.size()) != num_gpus) {
    return InvalidArgument("GPU link matrix '" + std::string(spec) + "' has " + std::to_string(rows.size()) +
                           " rows, expected " + std::to_string(num_gpus) + " (one per GPU, separated by ';')");
  }
  GpuLinkMatrix m(num_gpus);
  std::vector<int> values(static_cast<size_t>(num_gpus) * num_gpus);
  for (int r = 0; r < num_gpus; ++r) {
    std::vector<std::string_view> cells = Split(rows[r], ',');
    if (static_cast<int>(cells.size()) != num_gpus) {
      return InvalidArgument("GPU link matrix is not square: row " + std::to_string(r) + " has " +
                             std::to_string(cells.size()) + " entries, expected " + std::to_string(num_gpus));
    }
    for (int c = 0; c < num_gpus; ++c) {
      std::string_view token = Trim(cells[c]);
      std::string where = "GPU link matrix entry (" + std::to_string(r) + "," + std::to_string(c) + ")";
      int64_t v = 0;
      if (!ParseInt(token, &v)) {
        return InvalidArgument(where + " '" + std::string(token) + "' is not an integer");
      }
      if (v < 0) return InvalidArgument(where + " is negative (" + std::string(token) + ")");
      if (v > kMaxLinks) {
        return InvalidArgument(where + " is " + std::string(token) + ", more than " + std::to_string(kMaxLinks) +
                               " links");
      }
      if (r == c && v != 0) {
        return InvalidArgument(where + " is on the diagonal and must be 0, got " + std::to_string(v));
      }
      values[static_cast<size_t>(r) * num_gpus + c] = static_cast<int>(v);
    }
  }
  for (int r = 0; r < num_gpus; ++r) {
    for (int c = r + 1; c < num_gpus; ++c) {
      int a = values[static_cast<size_t>(r) * num_gpus + c];
      int b = values[static_cast<size_t>(c) * num_gpus + r];
      if (a != b) {
        return InvalidArgument("GPU link matrix is not symmetric: entry (" + std::to_string(r) + "," +
                               std::to_string(c) + ") is " + std::to_string(a) + " but (" + std::to_string(c) +
                               "," + std::to_string(r) + ") is " + std::to_string(b));
      }
      m.set_links(r, c, a);
    }
  }
  return m;
}

}  // namespace

GpuLinkMatrix::GpuLinkMatrix(int num_gpus) : n_(num_gpus) {
  MUSTER_CHECK(num_gpus >= 0 && num_gpus <= kMaxGpus) << "num_gpus " << num_gpus << " outside [0, 64]";
  links_.assign(static_cast<size_t>(num_gpus) * num_gpus, 0);
}

void GpuLinkMatrix::set_links(int a, int b, int count) {
  MUSTER_CHECK(a >= 0 && a < n_ && b >= 0 && b < n_) << "GPU pair (" << a << "," << b << ") outside 0.." << n_;
  MUSTER_CHECK(a != b || count == 0) << "the diagonal of a link matrix is 0 (GPU " << a << ")";
  MUSTER_CHECK(count >= 0 && count <= kMaxLinks) << "link count " << count << " outside [0, 255]";
  links_[static_cast<size_t>(a) * n_ + b] = static_cast<uint8_t>(count);
  links_[static_cast<size_t>(b) * n_ + a] = static_cast<uint8_t>(count);
}

int GpuLinkMatrix::LinkSum(uint64_t mask) const {
  MUSTER_CHECK(n_ == 64 || (mask >> n_) == 0) << "mask names a GPU beyond " << n_;
  int sum = 0;
  uint64_t rest = mask;
  while (rest != 0) {
    int a = std::countr_zero(rest);
    rest &= rest - 1;
    const uint8_t* row = &links_[static_cast<size_t>(a) * n_];
    for (uint64_t others = rest; others != 0; others &= others - 1) sum += row[std::countr_zero(others)];
  }
  return sum;
}

GpuLinkMatrix GpuLinkMatrix::NvSwitch(int num_gpus, int links_per_pair) {
  GpuLinkMatrix m(num_gpus);
  for (int a = 0; a < num_gpus; ++a) {
    for (int b = a + 1; b < num_gpus; ++b) m.set_links(a, b, links_per_pair);
  }
  m.nvswitch_ = true;
  return m;
}

GpuLinkMatrix GpuLinkMatrix::Islands(int num_gpus, int island_size, int links_per_pair) {
  MUSTER_CHECK(island_size > 0 && num_gpus % island_size == 0)
      << "island size " << island_size << " does not divide " << num_gpus << " GPUs";
  GpuLinkMatrix m(num_gpus);
  for (int a = 0; a < num_gpus; ++a) {
    for (int b = a + 1; b < num_gpus && b / island_size == a / island_size; ++b) m.set_links(a, b, links_per_pair);
  }
  return m;
}

GpuLinkMatrix GpuLinkMatrix::PcieOnly(int num_gpus) { return GpuLinkMatrix(num_gpus); }

GpuLinkMatrix GpuLinkMatrix::Dgx1HybridCubeMesh() {
  // `nvidia-smi topo -m` of a DGX-1 with V100 (NV1/NV2 = 1/2 NVLinks, SYS = none), as printed in
  // public DGX-1 topology write-ups and in msccl's topology tests.
  // The 2-link pairs form one 8-cycle 0-3-2-1-5-6-7-4-0; every GPU has 6 links.
  static constexpr int kPairs[][3] = {
      {0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1}, {1, 5, 2}, {2, 3, 2},
      {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1}, {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2},
  };
  GpuLinkMatrix m(8);
  for (const auto& p : kPairs) m.set_links(p[0], p[1], p[2]);
  return m;
}

StatusOr<GpuLinkMatrix> GpuLinkMatrix::Parse(const std::string& spec_in, int num_gpus) {
  // 0 GPUs is allowed (a CPU-only node may carry the partition's default layout): an empty matrix.
  if (num_gpus < 0 || num_gpus > kMaxGpus) {
    return InvalidArgument("GPU count " + std::to_string(num_gpus) + " for a link layout must be in [0, 64]");
  }
  std::string_view spec = Trim(spec_in);
  if (spec.empty()) return InvalidArgument("GPU link layout is empty");
  if (spec == "nvswitch") return NvSwitch(num_gpus);
  if (spec == "pcie") return PcieOnly(num_gpus);
  if (spec == "dgx1") {
    if (num_gpus != 8) {
      return InvalidArgument("GPU link layout 'dgx1' needs exactly 8 GPUs, the node has " +
                             std::to_string(num_gpus));
    }
    return Dgx1HybridCubeMesh();
  }
  constexpr std::string_view kIslands = "islands:";
  if (spec.substr(0, kIslands.size()) == kIslands) {
    std::string_view size_text = Trim(spec.substr(kIslands.size()));
    int64_t size = 0;
    if (!ParseInt(size_text, &size) || size < 1) {
      return InvalidArgument("GPU link layout '" + std::string(spec) + "': island size '" + std::string(size_text) +
                             "' is not a positive integer");
    }
    if ((num_gpus > 0 && size > num_gpus) || num_gpus % size != 0) {
      return InvalidArgument("GPU link layout '" + std::string(spec) + "': island size " + std::to_string(size) +
                             " does not divide the node's " + std::to_string(num_gpus) + " GPUs");
    }
    return Islands(num_gpus, static_cast<int>(size));
  }
  char first = spec.front();
  if ((first >= '0' && first <= '9') || first == '-' || first == '+') return ParseMatrix(spec, num_gpus);
  return InvalidArgument("unknown GPU link layout '" + std::string(spec) +
                         "' (expected nvswitch, pcie, dgx1, islands:<size> or a matrix like '0,2;2,0')");
}

}  // namespace muster
