#include "wire/agent.h"

#include <algorithm>

namespace muster::wire {

StatusOr<NodeReport> CheckedNodeReport(NodeReport report) {
  if (report.gpu_faults) {
    for (const GpuFault& f : *report.gpu_faults) {
      if (f.index < 0 || f.index >= 4096) {
        return InvalidArgument("field 'gpu_health[].index' is out of range: " + std::to_string(f.index));
      }
    }
    std::sort(report.gpu_faults->begin(), report.gpu_faults->end(),
              [](const GpuFault& a, const GpuFault& b) { return a.index < b.index; });
  }
  return report;
}

}  // namespace muster::wire
