// A job's dependencies (sbatch --dependency) as the job keeps them: parsed once, at submission (or
// at scontrol update), and written back as text where a record is stored or shown. The syntax and
// what each type means: model/dependency.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace muster {

enum class DependencyType { kAfter, kAfterAny, kAfterOk, kAfterNotOk, kAfterCorr, kSingleton };

struct DependencyItem {
  DependencyType type = DependencyType::kAfterAny;
  int64_t job_id = 0;  // 0 for singleton
  friend bool operator==(const DependencyItem&, const DependencyItem&) = default;
};

struct DependencySpec {
  std::vector<DependencyItem> items;  // one per job id ("afterok:1:2" gives two)
  bool any = false;                   // '?' between items
  bool empty() const { return items.empty(); }
  friend bool operator==(const DependencySpec&, const DependencySpec&) = default;
};

// "" gives an empty spec. Errors name the part: "invalid dependency 'after:x': 'x' is not a job id".
StatusOr<DependencySpec> ParseDependency(std::string_view text);

// The spec as text ParseDependency reads back to the same spec: with ',' items of one type in a row
// share it ("afterok:12:13,afterany:14"), with '?' each stands alone ("singleton?after:3?after:4");
// "" for none.
std::string DependencyText(const DependencySpec& spec);

}  // namespace muster
