#include "cli/scontrol_ping.h"

#include "config/muster_config.h"
#include "net/http.h"
#include "wire/jobs.h"

namespace muster {

std::string SlurmPingText(const std::vector<ControllerPing>& pings, bool root) {
  std::string out;
  bool down = false;
  for (size_t i = 0; i < pings.size(); ++i) {
    const std::string mode = i == 0                        ? "primary"
                             : (i == 1 && pings.size() == 2) ? "backup"
                                                             : "backup" + std::to_string(i);
    out += "Slurmctld(" + mode + ") at " + pings[i].host + " is " + (pings[i].up ? "UP" : "DOWN") + "\n";
    down = down || !pings[i].up;
  }
  if (down && root) {
    out += "*****************************************\n";
    out += "** RESTORE SLURMCTLD DAEMON TO SERVICE **\n";
    out += "*****************************************\n";
  }
  return out;
}

int SlurmPingExitCode(const std::vector<ControllerPing>& pings) {
  for (const ControllerPing& p : pings) {
    if (p.up) return 0;
  }
  return 1;
}

std::vector<ControllerPing> PingControllers(const std::vector<std::string>& hosts, int timeout_ms) {
  std::vector<ControllerPing> out;
  for (const std::string& address : hosts) {
    ControllerPing p;
    StatusOr<HostPort> hp = ParseHostPort(address, "controller.hosts");
    p.host = hp.ok() ? hp->host : address;
    StatusOr<std::unique_ptr<HttpClient>> http = HttpClient::Connect(address, "", timeout_ms);
    if (http.ok()) {
      StatusOr<HttpResponse> r = (*http)->Request("GET", "/v1/ping");
      p.up = r.ok() && r->status == 200 && wire::Decode<PingAnswer>(r->body, "the controller's answer").ok();
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace muster
