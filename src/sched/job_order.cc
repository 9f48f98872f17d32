#include "sched/job_order.h"

#include <array>

namespace muster {
namespace {

struct Row {
  std::string_view name;
  std::unique_ptr<const JobOrderPolicy> (*make)();
};

// The orders, by name. A new order: its row here (its name as its name() says it).
constexpr std::array kOrders = {
    Row{"multifactor", NewMultifactorOrder},
    Row{"least-attained", NewLeastAttainedOrder},
    Row{"shortest-remaining", NewShortestRemainingOrder},
};

constexpr std::array<std::string_view, kOrders.size()> NamesOf() {
  std::array<std::string_view, kOrders.size()> out{};
  for (size_t i = 0; i < kOrders.size(); ++i) out[i] = kOrders[i].name;
  return out;
}

constexpr std::array kNames = NamesOf();

}  // namespace

std::span<const std::string_view> JobOrderRegistry::Names() { return kNames; }

std::unique_ptr<const JobOrderPolicy> JobOrderRegistry::Create(std::string_view name) {
  for (const Row& row : kOrders) {
    if (row.name == name) return row.make();
  }
  return nullptr;
}

}  // namespace muster
