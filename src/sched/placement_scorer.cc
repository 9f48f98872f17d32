#include "sched/placement_scorer.h"

#include <array>

namespace muster {
namespace {

struct Row {
  std::string_view name;
  std::shared_ptr<const PlacementScorer> (*make)();
};

// The scorers, by name. A new scorer: its row here (its name as its name() says it).
constexpr std::array kScorers = {
    Row{"learned", NewLearnedScorer},
    Row{"bestfit", NewBestFitScorer},
};

constexpr std::array<std::string_view, kScorers.size()> NamesOf() {
  std::array<std::string_view, kScorers.size()> out{};
  for (size_t i = 0; i < kScorers.size(); ++i) out[i] = kScorers[i].name;
  return out;
}

constexpr std::array kNames = NamesOf();

}  // namespace

std::span<const std::string_view> PlacementScorerRegistry::Names() { return kNames; }

std::shared_ptr<const PlacementScorer> PlacementScorerRegistry::Create(std::string_view name) {
  for (const Row& row : kScorers) {
    if (row.name == name) return row.make();
  }
  return nullptr;
}

StatusOr<std::shared_ptr<const PlacementScorer>> PlacementScorerRegistry::Parse(std::string_view word) {
  if (std::shared_ptr<const PlacementScorer> s = Create(word)) return s;
  // "'x' is not learned or bestfit": every name, the last after "or".
  std::string names;
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (i > 0) names += i + 1 == kNames.size() ? " or " : ", ";
    names += kNames[i];
  }
  return InvalidArgument("'" + std::string(word) + "' is not " + names);
}

const PlacementScorer& PlacementScorerRegistry::BestFit() {
  static const std::shared_ptr<const PlacementScorer> best_fit = NewBestFitScorer();
  return *best_fit;
}

}  // namespace muster
