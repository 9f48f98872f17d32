#include "model/dependency.h"

#include <cctype>

namespace muster {
namespace {

const char* TypeName(DependencyType t) {
  switch (t) {
    case DependencyType::kAfter: return "after";
    case DependencyType::kAfterAny: return "afterany";
    case DependencyType::kAfterOk: return "afterok";
    case DependencyType::kAfterNotOk: return "afternotok";
    case DependencyType::kAfterCorr: return "aftercorr";
    case DependencyType::kSingleton: return "singleton";
  }
  return "?";
}

Status Bad(std::string_view text, const std::string& why) {
  return InvalidArgument("invalid dependency '" + std::string(text) + "': " + why);
}

bool Ended(const JobRecord& j) { return IsFinished(j.state); }

}  // namespace

StatusOr<DependencySpec> ParseDependency(std::string_view text) {
  DependencySpec spec;
  if (text.empty()) return spec;
  const bool has_comma = text.find(',') != std::string_view::npos;
  const bool has_any = text.find('?') != std::string_view::npos;
  if (has_comma && has_any) return Bad(text, "',' and '?' cannot be mixed");
  spec.any = has_any;
  const char sep = has_any ? '?' : ',';
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(sep, pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view part = text.substr(pos, end - pos);
    pos = end + 1;
    if (part.empty()) return Bad(text, "an empty item");
    if (part == "singleton") {
      spec.items.push_back({DependencyType::kSingleton, 0});
      continue;
    }
    const size_t colon = part.find(':');
    if (colon == std::string_view::npos) return Bad(text, "'" + std::string(part) + "' names no job");
    const std::string_view type = part.substr(0, colon);
    DependencyType t;
    if (type == "after") t = DependencyType::kAfter;
    else if (type == "afterany") t = DependencyType::kAfterAny;
    else if (type == "afterok") t = DependencyType::kAfterOk;
    else if (type == "afternotok") t = DependencyType::kAfterNotOk;
    else if (type == "aftercorr") t = DependencyType::kAfterCorr;
    else return Bad(text, "unknown type '" + std::string(type) + "'");
    std::string_view ids = part.substr(colon + 1);
    size_t ipos = 0;
    while (ipos <= ids.size()) {
      size_t iend = ids.find(':', ipos);
      if (iend == std::string_view::npos) iend = ids.size();
      const std::string_view id = ids.substr(ipos, iend - ipos);
      ipos = iend + 1;
      if (id.empty() || id.size() > 15 || id.find_first_not_of("0123456789") != std::string_view::npos) {
        return Bad(text, "'" + std::string(id) + "' is not a job id");
      }
      spec.items.push_back({t, std::stoll(std::string(id))});
    }
  }
  return spec;
}

std::string DependencyText(const DependencySpec& spec) {
  std::string out;
  for (size_t i = 0; i < spec.items.size(); ++i) {
    const DependencyItem& item = spec.items[i];
    // With '?' every item stands alone (ParseDependency reads "afterok:1:2" there as either).
    const bool same_type = !spec.any && i > 0 && item.type == spec.items[i - 1].type &&
                           item.type != DependencyType::kSingleton;
    if (same_type) {
      out += ':';
    } else {
      if (i > 0) out += spec.any ? '?' : ',';
      out += TypeName(item.type);
      if (item.type == DependencyType::kSingleton) continue;
      out += ':';
    }
    out += std::to_string(item.job_id);
  }
  return out;
}

DependencyState ItemState(const DependencyItem& item, const std::function<const JobRecord*(int64_t)>& find,
                          bool singleton_blocked) {
  if (item.type == DependencyType::kSingleton) {
    return singleton_blocked ? DependencyState::kWaiting : DependencyState::kSatisfied;
  }
  const JobRecord* j = find(item.job_id);
  if (j == nullptr) return DependencyState::kSatisfied;
  switch (item.type) {
    case DependencyType::kAfter:
      return j->start_time > 0 || Ended(*j) ? DependencyState::kSatisfied : DependencyState::kWaiting;
    case DependencyType::kAfterAny:
      return Ended(*j) ? DependencyState::kSatisfied : DependencyState::kWaiting;
    case DependencyType::kAfterOk:
    case DependencyType::kAfterCorr:
      if (!Ended(*j)) return DependencyState::kWaiting;
      return j->state == JobState::kCompleted && j->exit_code == 0 ? DependencyState::kSatisfied
                                                                   : DependencyState::kNever;
    case DependencyType::kAfterNotOk:
      if (!Ended(*j)) return DependencyState::kWaiting;
      return j->state == JobState::kCompleted && j->exit_code == 0 ? DependencyState::kNever
                                                                   : DependencyState::kSatisfied;
    case DependencyType::kSingleton:
      break;
  }
  return DependencyState::kWaiting;
}

DependencyState EvaluateDependency(const DependencySpec& spec, const std::function<const JobRecord*(int64_t)>& find,
                                   bool singleton_blocked) {
  if (spec.items.empty()) return DependencyState::kSatisfied;
  bool waiting = false, never = false, satisfied = false;
  for (const DependencyItem& item : spec.items) {
    switch (ItemState(item, find, singleton_blocked)) {
      case DependencyState::kSatisfied: satisfied = true; break;
      case DependencyState::kWaiting: waiting = true; break;
      case DependencyState::kNever: never = true; break;
    }
  }
  if (spec.any) {
    if (satisfied) return DependencyState::kSatisfied;
    return waiting ? DependencyState::kWaiting : DependencyState::kNever;
  }
  if (never) return DependencyState::kNever;
  return waiting ? DependencyState::kWaiting : DependencyState::kSatisfied;
}

std::string FormatDependency(const DependencySpec& spec, const std::vector<DependencyState>& states) {
  std::string out;
  const char* sep = spec.any ? "?" : ",";
  for (size_t i = 0; i < spec.items.size(); ++i) {
    const DependencyState st = i < states.size() ? states[i] : DependencyState::kWaiting;
    if (st == DependencyState::kSatisfied) continue;
    const DependencyItem& item = spec.items[i];
    if (!out.empty()) out += sep;
    out += TypeName(item.type);
    if (item.type != DependencyType::kSingleton) out += ":" + std::to_string(item.job_id);
    out += st == DependencyState::kNever ? "(failed)" : "(unfulfilled)";
  }
  return out;
}

}  // namespace muster
