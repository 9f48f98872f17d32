// scontrol ping with several controllers (controller.hosts): each is asked GET /v1/ping directly
// and printed as Slurm 22.05's scontrol prints its SlurmctldHost lines:
//   Slurmctld(primary) at ctl1 is UP
//   Slurmctld(backup) at ctl2 is DOWN
// (three or more: backup1, backup2, ... by position). A controller is UP when it answers the
// ping, leading or standing by. The exit code is 0 when any is UP, else 1; when one is DOWN, root
// also reads Slurm's "RESTORE SLURMCTLD DAEMON TO SERVICE" banner.
#pragma once

#include <string>
#include <vector>

namespace muster {

struct ControllerPing {
  std::string host;  // the host part of its controller.hosts entry
  bool up = false;
};

// Slurm's lines for `pings`, in order; `root`: the caller is root (the banner).
std::string SlurmPingText(const std::vector<ControllerPing>& pings, bool root);
int SlurmPingExitCode(const std::vector<ControllerPing>& pings);

// GET /v1/ping at each of `hosts` (controller.hosts entries, "host:port"), without a token (the
// route answers anyone): UP when it answers 200 with a ping's answer within `timeout_ms`.
std::vector<ControllerPing> PingControllers(const std::vector<std::string>& hosts, int timeout_ms = 5000);

}  // namespace muster
