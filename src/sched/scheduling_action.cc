#include "sched/scheduling_action.h"

#include <array>

#include "sched/placer.h"
#include "sched/scheduler.h"

namespace muster {

namespace {

struct Row {
  std::string_view name;
  std::unique_ptr<const SchedulingAction> (*make)();
};

// The pass's stages, in the order they run (see scheduling_action.h: the order is meaning).
constexpr std::array kActions = {
    Row{"admit", NewAdmitAction},       Row{"limits", NewLimitsAction},     Row{"backfill", NewBackfillAction},
    Row{"blocked", NewBlockedAction},   Row{"allocate", NewAllocateAction}, Row{"preempt", NewPreemptAction},
    Row{"reserve", NewReserveAction},
};

constexpr std::array<std::string_view, kActions.size()> NamesOf() {
  std::array<std::string_view, kActions.size()> out{};
  for (size_t i = 0; i < kActions.size(); ++i) out[i] = kActions[i].name;
  return out;
}

constexpr std::array kNames = NamesOf();

}  // namespace

std::span<const std::string_view> ActionRegistry::Names() { return kNames; }

std::unique_ptr<const SchedulingAction> ActionRegistry::Create(std::string_view name) {
  for (const Row& row : kActions) {
    if (row.name == name) return row.make();
  }
  return nullptr;
}

std::span<const SchedulingAction* const> ActionRegistry::Pass() {
  struct Made {
    std::array<std::unique_ptr<const SchedulingAction>, kActions.size()> owned;
    std::array<const SchedulingAction*, kActions.size()> order;
  };
  static const Made made = [] {
    Made m;
    for (size_t i = 0; i < kActions.size(); ++i) {
      m.owned[i] = kActions[i].make();
      m.order[i] = m.owned[i].get();
    }
    return m;
  }();
  return made.order;
}

Statement PassContext::Checkpoint() { return s_.Checkpoint(nullptr); }

std::optional<Decision> PassContext::Preempt(const JobStep& step, bool need_limits) {
  return s_.Preempt(step.job, *step.part, *step.shape, *step.nodes, *step.use, *step.key, step.limit, need_limits);
}

Decision PassContext::Reserve(Decision pending, const JobStep& step, const std::string& partition) {
  return s_.Reserve(std::move(pending), partition, *step.shape, *step.nodes, step.limit);
}

Decision PassContext::Start(const JobStep& step, std::vector<NodeAllocation> alloc) {
  return s_.Start(step.job, std::move(alloc), step.limit);
}

bool PassContext::FitsNow(const JobStep& step) { return s_.FitsNow(*step.shape, *step.nodes, *step.key); }

bool PassContext::Claimable(const std::vector<NodeAllocation>& alloc) { return s_.Claimable(alloc); }

std::optional<std::vector<NodeAllocation>> PassContext::Place(const JobStep& step) {
  Placer placer(s_.index_, s_.plan_, s_.options_.mix.get(), s_.options_.placement.get());
  return placer.Place(*step.shape, *step.nodes);
}

std::optional<std::vector<NodeAllocation>> PassContext::PlaceDuring(const JobStep& step, int64_t start) {
  return s_.PlaceDuring(*step.shape, *step.nodes, start, step.limit);
}

}  // namespace muster
