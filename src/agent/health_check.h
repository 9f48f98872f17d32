// A site's node health-check program, as Slurm's HealthCheckProgram runs NHC: the agent runs it
// (as itself, root on a real node) every interval; a non-zero exit drains the node with the first
// line of its output as the reason, and a zero exit lets a node it drained resume.
#pragma once

#include <cstdint>
#include <string>

namespace muster {

struct HealthCheckResult {
  bool ok = true;
  std::string reason;  // the program's first output line, or what went wrong running it
  friend bool operator==(const HealthCheckResult&, const HealthCheckResult&) = default;
};

// Runs `program` (no arguments, PATH=/usr/sbin:/usr/bin:/sbin:/bin) and waits for it at most
// `timeout_ms` (then kills its process group: a hung check is a failed one).
HealthCheckResult RunHealthCheck(const std::string& program, int64_t timeout_ms);

}  // namespace muster
