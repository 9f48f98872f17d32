// Hostlists, times, durations, memory sizes, job arrays and dependencies: one field per input line.
#include <cstdint>

#include "fuzz/fuzz_util.h"
#include "model/dependency.h"
#include "model/hostlist.h"
#include "model/job_array.h"
#include "model/job_request.h"
#include "model/slurm_time.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace muster;
  for (const std::string& field : fuzz::Split(fuzz::Text(data, size), "\n")) {
    StatusOr<std::vector<std::string>> hosts = ExpandHostlist(field);
    if (hosts.ok()) {
      // Compressing what was expanded names the same hosts again.
      StatusOr<std::vector<std::string>> again = ExpandHostlist(CompressHostlist(*hosts));
      if (!again.ok() || again->size() > hosts->size()) __builtin_trap();
    }
    (void)ParseSlurmTime(field, 1764800000, TimeDirection::kPast);
    (void)ParseSlurmTime(field, 1764800000, TimeDirection::kFuture);
    (void)ParseTimeSpec(field);
    (void)ParseMemoryMb(field);
    (void)ParseArraySpec(field);
    (void)ParseDependency(field);
  }
  return 0;
}
