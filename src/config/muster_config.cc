#include "config/muster_config.h"
#include "model/outage.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "config/cluster_settings.h"
#include "config/slurm_conf.h"
#include "config/yaml_reader.h"

namespace muster {

using config_internal::MapReader;

namespace {

std::string Absolute(const std::string& base_dir, const std::string& p) {
  if (p.empty() || p[0] == '/') return p;
  return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

bool IsNumericUid(const std::string& who) {
  return !who.empty() && who.find_first_not_of("0123456789") == std::string::npos && who.size() < 10;
}

bool IsWildcardHost(const std::string& host) { return host.empty() || host == "0.0.0.0" || host == "::"; }

}  // namespace

StatusOr<uint32_t> ResolveUser(const std::string& who) {
  if (IsNumericUid(who)) {
    return static_cast<uint32_t>(std::stoul(who));
  }
  struct passwd pw, *res = nullptr;
  char buf[4096];
  if (getpwnam_r(who.c_str(), &pw, buf, sizeof buf, &res) == 0 && res != nullptr) return pw.pw_uid;
  return InvalidArgument("unknown user '" + who + "'");
}

StatusOr<HostPort> ParseHostPort(const std::string& text, const std::string& what) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument(what + " must be host:port, got '" + text + "' (" + why + ")");
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return bad("no port");
  HostPort hp;
  hp.host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  if (hp.host.size() >= 2 && hp.host.front() == '[' && hp.host.back() == ']') {
    hp.host = hp.host.substr(1, hp.host.size() - 2);
  } else if (hp.host.find(':') != std::string::npos) {
    return bad("write an IPv6 address in brackets: [::1]:6818");
  }
  if (hp.host.empty() || hp.host.find_first_of(" \t[]/") != std::string::npos) return bad("bad host");
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) > 65535) {
    return bad("the port must be a number from 0 to 65535");
  }
  hp.port = std::stoi(port);
  return hp;
}

std::string JoinHostPort(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::vector<std::string> ControllerAddresses(const MusterConfig& conf) {
  if (!conf.ctld_hosts.empty()) return conf.ctld_hosts;
  return {conf.ctld_listen};
}

std::string AgentAdvertisedHost(const HostPort& listen, const std::string& node) {
  return IsWildcardHost(listen.host) ? node : listen.host;
}

std::string DefaultConfigPath() {
  if (const char* e = std::getenv("MUSTER_CONF"); e != nullptr && *e) return e;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home) {
    std::string p = std::string(home) + "/.muster/muster.yaml";
    if (access(p.c_str(), R_OK) == 0) return p;
  }
  return "/etc/muster/muster.yaml";
}

namespace {

Status CheckHeartbeats(const MusterConfig& c, const std::string& path, const YAML::Node& doc) {
  if (c.heartbeat_interval_s * 2 <= c.heartbeat_timeout_s) return Status::Ok();
  // The timeout may be a slurm.conf's SlurmdTimeout=: then the message says where it was set.
  std::string from;
  if (auto s = c.cluster.settings.find("controller.heartbeat_timeout");
      s != c.cluster.settings.end() && !config_internal::YamlSets(doc, "controller.heartbeat_timeout")) {
    from = ", from " + s->second.origin;
  }
  return InvalidArgument(path + ": agent.heartbeat_interval (" + std::to_string(c.heartbeat_interval_s) +
                         ") must be at most half of controller.heartbeat_timeout (" +
                         std::to_string(c.heartbeat_timeout_s) + from + ")");
}

// The controller's and the agents' keys a slurm.conf may set (config/cluster_settings.h: what
// muster.yaml sets wins).
void ApplyClusterSettings(const YAML::Node& doc, const std::string& path, MusterConfig* c) {
  config_internal::ClusterSettings s(c->cluster, doc, path, &c->cluster.warnings);
  s.Int("controller.kill_wait", &c->kill_wait_s);
  s.Int("controller.heartbeat_timeout", &c->heartbeat_timeout_s);
  s.Int("controller.min_job_age", &c->min_job_age_s);
  s.Int("controller.first_job_id", &c->first_job_id);
  s.Bool("controller.allow_root_jobs", &c->allow_root_jobs);
  s.Text("agent.health_check.program", &c->health_check_program);
  s.Text("controller.jwt_key", &c->jwt_key);
  s.Int("controller.jwt_max_lifespan", &c->jwt_max_lifespan_s);
  s.Int("agent.health_check.interval", &c->health_check_interval_s);
}

// The tls section: all three files or none. The daemons need the CA, their certificate and a key
// no one else may read. A command needs the CA only when it connects over TCP (a user on the
// Unix socket may not be able to read it): it is checked then (cli/ctld_client.h's UseClusterTls).
Status ReadTls(const MapReader& root, const std::string& path, const std::string& dir, ConfigReader reader,
               MusterConfig* c) {
  const YAML::Node* t = root.Find("tls");
  if (t == nullptr) return Status::Ok();
  ASSIGN_OR_RETURN(MapReader m, MapReader::Make(path, *t, "tls", {"ca_file", "cert_file", "key_file"}));
  std::string* fields[] = {&c->tls_ca_file, &c->tls_cert_file, &c->tls_key_file};
  const char* names[] = {"ca_file", "cert_file", "key_file"};
  std::string missing;
  for (int i = 0; i < 3; ++i) {
    std::string v;
    RETURN_IF_ERROR(m.String(names[i], &v));
    if (v.empty()) {
      missing += std::string(missing.empty() ? "" : ", ") + "tls." + names[i];
    } else {
      *fields[i] = Absolute(dir, v);
    }
  }
  if (!missing.empty()) {
    return InvalidArgument(path + ": the tls section needs ca_file, cert_file and key_file; missing: " + missing);
  }
  auto readable = [&](const char* name, const std::string& file) -> Status {
    if (::access(file.c_str(), R_OK) != 0) {
      return InvalidArgument(path + ": tls." + name + ": cannot read " + file + ": " + std::strerror(errno));
    }
    return Status::Ok();
  };
  if (reader == ConfigReader::kCommand) return Status::Ok();
  RETURN_IF_ERROR(readable("ca_file", c->tls_ca_file));
  RETURN_IF_ERROR(readable("cert_file", c->tls_cert_file));
  RETURN_IF_ERROR(readable("key_file", c->tls_key_file));
  struct stat st{};
  if (::stat(c->tls_key_file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return InvalidArgument(path + ": tls.key_file: " + c->tls_key_file + " is not a regular file");
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return InvalidArgument(path + ": tls.key_file: " + c->tls_key_file + " has mode " + mode +
                           "; a private key must be readable by its owner only (chmod 600)");
  }
  return Status::Ok();
}

// controller.hosts: each HOST:PORT with a port, listed once (written back joined again).
Status ReadControllerHosts(const MapReader& m, const std::string& path, MusterConfig* c) {
  RETURN_IF_ERROR(m.StringList("hosts", &c->ctld_hosts));
  for (size_t i = 0; i < c->ctld_hosts.size(); ++i) {
    const std::string what = "controller.hosts[" + std::to_string(i) + "]";
    StatusOr<HostPort> hp = ParseHostPort(c->ctld_hosts[i], what);
    if (!hp.ok()) return InvalidArgument(path + ": " + hp.status().message());
    if (hp->port == 0) return InvalidArgument(path + ": " + what + ": '" + c->ctld_hosts[i] + "' needs a port other than 0");
    c->ctld_hosts[i] = JoinHostPort(hp->host, hp->port);
    for (size_t j = 0; j < i; ++j) {
      if (c->ctld_hosts[j] == c->ctld_hosts[i]) {
        return InvalidArgument(path + ": " + what + ": '" + c->ctld_hosts[i] + "' is listed twice");
      }
    }
  }
  return Status::Ok();
}

// The controller section over the defaults; its admins into *admins.
Status ReadControllerSection(const MapReader& root, const std::string& path, const std::string& dir,
                             MusterConfig* c, std::vector<std::string>* admins) {
  const YAML::Node* ctl = root.Find("controller");
  if (ctl == nullptr) return Status::Ok();
  ASSIGN_OR_RETURN(MapReader m, MapReader::Make(path, *ctl, "controller",
                                                {"socket", "listen", "state", "key_file", "heartbeat_timeout",
                                                 "kill_wait", "min_job_age", "first_job_id", "admins", "allow_root_jobs",
                                                 "launch_failure", "rest_listen", "jwt_key", "jwt_max_lifespan", "hosts", "lease",
                                                 "state_password_file", "outage_threshold"}));
  std::string v;
  if (m.Has("socket")) {
    RETURN_IF_ERROR(m.String("socket", &v));
    c->ctld_socket = Absolute(dir, v);
  }
  RETURN_IF_ERROR(m.String("listen", &c->ctld_listen));
  if (!c->ctld_listen.empty()) {
    StatusOr<HostPort> hp = ParseHostPort(c->ctld_listen, "controller.listen");
    if (!hp.ok()) return InvalidArgument(path + ": " + hp.status().message());
  }
  RETURN_IF_ERROR(ReadControllerHosts(m, path, c));
  RETURN_IF_ERROR(m.Int("lease", &c->ctld_lease_s, 2, 300));
  RETURN_IF_ERROR(m.String("rest_listen", &c->rest_listen));
  if (!c->rest_listen.empty()) {
    StatusOr<HostPort> hp = ParseHostPort(c->rest_listen, "controller.rest_listen");
    if (!hp.ok()) return InvalidArgument(path + ": " + hp.status().message());
  }
  if (m.Has("jwt_key")) {
    RETURN_IF_ERROR(m.String("jwt_key", &v));
    if (!v.empty()) c->jwt_key = Absolute(dir, v);
  }
  RETURN_IF_ERROR(m.Int("jwt_max_lifespan", &c->jwt_max_lifespan_s, 0, int64_t{1} << 31));
  if (m.Has("state")) {
    RETURN_IF_ERROR(m.String("state", &v));
    if (v.rfind("postgresql://", 0) == 0 || v.rfind("postgres://", 0) == 0) {
      c->state_path = v;  // a PostgreSQL URL (store/pg_store.h)
    } else {
      if (v.rfind("sqlite:", 0) == 0) v = v.substr(7);
      if (v.empty()) return InvalidArgument(path + ": controller.state: empty SQLite path");
      c->state_path = Absolute(dir, v);
    }
  }
  if (m.Has("key_file")) {
    RETURN_IF_ERROR(m.String("key_file", &v));
    c->key_file = Absolute(dir, v);
  }
  if (m.Has("state_password_file")) {
    RETURN_IF_ERROR(m.String("state_password_file", &v));
    if (!v.empty()) c->state_password_file = Absolute(dir, v);
    if (!c->state_password_file.empty() && c->state_path.rfind("postgres", 0) != 0) {
      return InvalidArgument(path + ": controller.state_password_file goes with a PostgreSQL controller.state "
                             "(postgresql://...), not the SQLite file " + c->state_path);
    }
  }
  if (c->ctld_hosts.size() > 1 && c->state_path.rfind("postgres", 0) != 0) {
    return InvalidArgument(path + ": controller.hosts lists " + std::to_string(c->ctld_hosts.size()) +
                           " controllers, which share one state: controller.state must be a PostgreSQL URL "
                           "(postgresql://...), not the SQLite file " + c->state_path);
  }
  RETURN_IF_ERROR(m.Int("heartbeat_timeout", &c->heartbeat_timeout_s, 1, 86400));
  RETURN_IF_ERROR(m.Int("kill_wait", &c->kill_wait_s, 0, 86400));
  int64_t threshold = c->outage_threshold_pct;
  RETURN_IF_ERROR(m.Int("outage_threshold", &threshold, 1, 100));
  c->outage_threshold_pct = static_cast<int>(threshold);
  RETURN_IF_ERROR(m.Int("min_job_age", &c->min_job_age_s, 0, 365 * 86400));
  RETURN_IF_ERROR(m.Int("first_job_id", &c->first_job_id, 1, int64_t{1} << 40));
  RETURN_IF_ERROR(m.StringList("admins", admins));
  RETURN_IF_ERROR(m.Bool("allow_root_jobs", &c->allow_root_jobs));
  RETURN_IF_ERROR(m.Choice("launch_failure", {"hold", "requeue"}, &c->launch_failure));
  return Status::Ok();
}

// agent.gpu_health: how often the GPUs are checked, when a GPU is back, which Xids are critical.
Status ReadGpuHealth(const YAML::Node& node, const std::string& path, MusterConfig* c) {
  ASSIGN_OR_RETURN(MapReader h, MapReader::Make(path, node, "agent.gpu_health", {"interval", "recover_checks", "critical_xids"}));
  int64_t interval_s = c->gpu_health.interval_ms / 1000, recover = c->gpu_health.recover_checks;
  RETURN_IF_ERROR(h.Int("interval", &interval_s, 1, 3600));
  RETURN_IF_ERROR(h.Int("recover_checks", &recover, 1, 1000));
  c->gpu_health.interval_ms = interval_s * 1000;
  c->gpu_health.recover_checks = static_cast<int>(recover);
  if (h.Has("critical_xids")) {
    std::vector<std::string> xids;
    RETURN_IF_ERROR(h.StringList("critical_xids", &xids));
    c->gpu_health.critical_xids.clear();
    for (const std::string& x : xids) {
      char* end = nullptr;
      const long v = std::strtol(x.c_str(), &end, 10);
      if (x.empty() || *end != '\0' || v < 1 || v > 100000) {
        return InvalidArgument(path + ": agent.gpu_health.critical_xids: '" + x + "' is not an Xid number");
      }
      c->gpu_health.critical_xids.insert(static_cast<int>(v));
    }
  }
  return Status::Ok();
}

// The agent section over the defaults.
Status ReadAgentSection(const MapReader& root, const std::string& path, const std::string& dir, MusterConfig* c) {
  const YAML::Node* ag = root.Find("agent");
  if (ag == nullptr) return Status::Ok();
  ASSIGN_OR_RETURN(MapReader m, MapReader::Make(path, *ag, "agent",
                                                {"socket_dir", "listen", "spool_dir", "script_dir",
                                                 "heartbeat_interval", "gpus", "cgroups", "gpu_devices", "nvml_library",
                                                 "gpu_health", "health_check", "mps"}));
  std::string v;
  if (m.Has("socket_dir")) {
    RETURN_IF_ERROR(m.String("socket_dir", &v));
    c->agent_socket_dir = Absolute(dir, v);
  }
  RETURN_IF_ERROR(m.String("listen", &c->agent_listen));
  if (!c->agent_listen.empty()) {
    StatusOr<HostPort> hp = ParseHostPort(c->agent_listen, "agent.listen");
    if (!hp.ok()) return InvalidArgument(path + ": " + hp.status().message());
  }
  if (m.Has("spool_dir")) {
    RETURN_IF_ERROR(m.String("spool_dir", &v));
    c->spool_dir = Absolute(dir, v);
  }
  if (m.Has("script_dir")) {
    RETURN_IF_ERROR(m.String("script_dir", &v));
    if (!v.empty()) c->script_dir = Absolute(dir, v);
  }
  RETURN_IF_ERROR(m.Int("heartbeat_interval", &c->heartbeat_interval_s, 1, 3600));
  RETURN_IF_ERROR(m.Choice("gpus", {"auto", "nvml", "fake"}, &c->gpus));
  RETURN_IF_ERROR(m.Choice("cgroups", {"auto", "off"}, &c->cgroups));
  if (const YAML::Node* gh = m.Find("gpu_health")) RETURN_IF_ERROR(ReadGpuHealth(*gh, path, c));
  if (m.Has("mps")) {
    RETURN_IF_ERROR(m.String("mps", &c->mps));
    if (c->mps != "auto" && c->mps != "off" && (c->mps.empty() || c->mps[0] != '/')) {
      return InvalidArgument(path + ": agent.mps must be auto, off or an absolute path, got '" + c->mps + "'");
    }
  }
  if (const YAML::Node* hc = m.Find("health_check")) {
    ASSIGN_OR_RETURN(MapReader h, MapReader::Make(path, *hc, "agent.health_check", {"program", "interval"}));
    RETURN_IF_ERROR(h.String("program", &c->health_check_program));
    if (!c->health_check_program.empty() && c->health_check_program[0] != '/') {
      return InvalidArgument(path + ": agent.health_check.program must be an absolute path, got '" +
                             c->health_check_program + "'");
    }
    RETURN_IF_ERROR(h.Int("interval", &c->health_check_interval_s, 1, 86400));
  }
  if (m.Has("nvml_library")) {
    RETURN_IF_ERROR(m.String("nvml_library", &v));
    // A bare soname goes through the loader's search; anything with a '/' is a file beside this one.
    if (v.empty()) return InvalidArgument(path + ": agent.nvml_library is empty");
    c->nvml_library = v.find('/') == std::string::npos ? v : Absolute(dir, v);
  }
  if (m.Has("gpu_devices")) {
    RETURN_IF_ERROR(m.String("gpu_devices", &v));
    if (!v.empty()) c->gpu_devices = Absolute(dir, v);
  }
  return Status::Ok();
}

}  // namespace

// controller.state_password_file: a regular file its owner alone may read, as libpq wants of a
// password file (it would ignore a looser one, and the connection would then fail without a word
// about why).
Status CheckStatePasswordFile(const MusterConfig& conf) {
  if (conf.state_password_file.empty()) return Status::Ok();
  const std::string& path = conf.path;
  const std::string& file = conf.state_password_file;
  struct stat st{};
  if (::stat(file.c_str(), &st) != 0) {
    return InvalidArgument(path + ": controller.state_password_file: cannot read " + file + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return InvalidArgument(path + ": controller.state_password_file: " + file + " is not a regular file");
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return InvalidArgument(path + ": controller.state_password_file: " + file + " has mode " + mode +
                           "; a password file must be readable by its owner only (chmod 600)");
  }
  if (::access(file.c_str(), R_OK) != 0) {
    return InvalidArgument(path + ": controller.state_password_file: cannot read " + file + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

StatusOr<MusterConfig> LoadMusterConfig(const std::string& path, ConfigReader reader) {
  MusterConfig c;
  std::error_code ec;
  c.path = std::filesystem::absolute(path, ec).lexically_normal().string();
  const std::string dir = std::filesystem::path(c.path).parent_path().string();
  ASSIGN_OR_RETURN(std::string text, config_internal::ReadTextFile(path));
  ASSIGN_OR_RETURN(YAML::Node doc, config_internal::ParseYaml(text, path));
  ASSIGN_OR_RETURN(MapReader root, MapReader::Make(path, doc, "", kMusterConfigSections));
  RETURN_IF_ERROR(root.String("cluster", &c.cluster_name));
  std::string cluster_file;
  RETURN_IF_ERROR(root.String("cluster_file", &cluster_file, /*required=*/true));
  c.cluster_file = Absolute(dir, cluster_file);

  c.state_path = Absolute(dir, "state.db");
  c.key_file = Absolute(dir, "cluster.key");
  c.ctld_socket = Absolute(dir, "ctld.sock");
  c.agent_socket_dir = dir;
  c.spool_dir = Absolute(dir, "spool");
  std::vector<std::string> admins = {"root"};
  RETURN_IF_ERROR(ReadControllerSection(root, path, dir, &c, &admins));
  for (const std::string& a : admins) {
    if (reader == ConfigReader::kCommand && !IsNumericUid(a)) continue;
    StatusOr<uint32_t> uid = ResolveUser(a);
    if (!uid.ok()) return InvalidArgument(path + ": controller.admins: " + uid.status().message());
    c.admin_uids.push_back(*uid);
  }
  RETURN_IF_ERROR(ReadAgentSection(root, path, dir, &c));
  RETURN_IF_ERROR(ReadTls(root, path, dir, reader, &c));
  if (reader == ConfigReader::kCommand) {
    RETURN_IF_ERROR(CheckHeartbeats(c, path, doc));
    return c;
  }
  ASSIGN_OR_RETURN(c.cluster, LoadAnyClusterFile(c.cluster_file));  // YAML, or a slurm.conf (*.conf)
  ApplyClusterSettings(doc, path, &c);
  RETURN_IF_ERROR(CheckHeartbeats(c, path, doc));
  if (const OutageRule rule{c.outage_threshold_pct, c.heartbeat_interval_s * 1000};
      c.heartbeat_timeout_s * 1000 < rule.ShortestLeaseMs()) {
    c.cluster.warnings.push_back(path + ": controller.heartbeat_timeout (" + std::to_string(c.heartbeat_timeout_s) +
                                 " s) is too short for agent.heartbeat_interval (" + std::to_string(c.heartbeat_interval_s) +
                                 " s) to tell a controller outage from a node cut off before the leases run out: an outage "
                                 "longer than it ends the runs; at least " + std::to_string((rule.ShortestLeaseMs() + 999) / 1000) +
                                 " s lets them go on");
  }
  if (c.cluster_name.empty()) c.cluster_name = c.cluster.name.empty() ? "muster" : c.cluster.name;
  return c;
}

}  // namespace muster
