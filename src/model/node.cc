#include "model/node.h"

#include <algorithm>

namespace muster {

const char* NodeStateName(NodeState s) {
  switch (s) {
    case NodeState::kIdle: return "idle";
    case NodeState::kMixed: return "mix";
    case NodeState::kAllocated: return "alloc";
    case NodeState::kCompleting: return "comp";
    case NodeState::kDown: return "down";
    case NodeState::kFuture: return "future";
    case NodeState::kUnknown: return "unk";
  }
  return "unk";
}

bool Node::has_feature(const std::string& f) const {
  return std::find(features.begin(), features.end(), f) != features.end();
}

StatusOr<std::vector<std::vector<std::string>>> ParseConstraint(const std::string& expr) {
  std::vector<std::vector<std::string>> terms;
  if (expr.empty()) return terms;
  if (expr.find_first_of("[]*()") != std::string::npos) {
    return InvalidArgument("--constraint '" + expr + "': brackets and counts are not supported; use '&' and '|'");
  }
  size_t start = 0;
  while (start <= expr.size()) {
    const size_t bar = expr.find('|', start);
    const std::string term = expr.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    std::vector<std::string>& feats = terms.emplace_back();
    size_t s = 0;
    while (s <= term.size()) {
      const size_t amp = term.find('&', s);
      std::string f = term.substr(s, amp == std::string::npos ? std::string::npos : amp - s);
      if (f.empty()) return InvalidArgument("--constraint '" + expr + "': empty feature name");
      feats.push_back(std::move(f));
      if (amp == std::string::npos) break;
      s = amp + 1;
    }
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return terms;
}

bool SatisfiesConstraint(const Node& node, const std::vector<std::vector<std::string>>& terms) {
  if (terms.empty()) return true;
  return std::any_of(terms.begin(), terms.end(), [&](const std::vector<std::string>& all) {
    return std::all_of(all.begin(), all.end(), [&](const std::string& f) { return node.has_feature(f); });
  });
}

}  // namespace muster
