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

}  // namespace muster
