// muster.yaml: the one configuration file of a cluster, read by musterctld, musterd and the
// commands. It names the cluster file (nodes, partitions, topology; docs/cluster-file.md) and
// holds the settings of the controller, the agents and the clients (docs/configuration.md).
//
//   cluster: local
//   cluster_file: cluster.yaml          # or a Slurm site's slurm.conf (any *.conf; config/slurm_conf.h);
//                                       # relative paths are relative to this file
//   controller:
//     socket: /run/muster/ctld.sock     # Unix socket: callers identified by peer credentials
//     listen: 127.0.0.1:6817            # TCP: callers present a token minted by their node's agent
//     hosts: [ctl1:6817, ctl2:6817]     # optional: the controllers, in order (Slurm's SlurmctldHost
//                                       # lines; the first is the primary), each by its listen address.
//                                       # They share a PostgreSQL state: one leads, the others stand by
//     lease: 6                          # seconds a leader's lease in the store lasts unrenewed (the
//                                       # longest a dead leader holds the cluster up)
//     state: /var/lib/muster/state.db   # SQLite file (WAL; also sqlite:FILE), or a PostgreSQL URL:
//                                       # postgresql://muster@127.0.0.1:5432/muster
//     state_password_file: /etc/muster/pgpass  # optional, with a PostgreSQL state: a libpq password
//                                       # file (HOST:PORT:DB:USER:PASSWORD lines; mode 0600), so the
//                                       # password stays out of this file, which every user reads
//     key_file: /etc/muster/cluster.key # signs tokens; mode 0600
//     rest_listen: 127.0.0.1:6820       # optional: slurmrestd's REST API (/slurm/v0.0.38) over TCP, JWT callers
//     jwt_key: /etc/muster/jwt_hs256.key  # optional: signs and verifies JWTs (scontrol token); mode 0600
//     jwt_max_lifespan: 86400           # the longest lifespan of a user's `scontrol token` (seconds; 0 =
//                                       # no limit; root and admins are not bound: Slurm's max_token_lifespan)
//     heartbeat_timeout: 30             # seconds of silence before a node is DOWN (and its lease)
//     outage_threshold: 55              # % of the nodes silent at once that the controller takes for its
//                                       # own fault: it requeues nothing then (model/outage.h)
//     kill_wait: 30                     # seconds between SIGTERM and SIGKILL
//     min_job_age: 300                  # seconds a finished job stays listed (Slurm's MinJobAge)
//     first_job_id: 1                   # the first id of a new state database (Slurm's FirstJobId)
//     launch_failure: hold              # a job a node could not launch is requeued held (Slurm's
//                                       # "launch failed requeued held") | requeue (runs elsewhere)
//     admins: [root]                    # users (or uids) allowed admin verbs
//     allow_root_jobs: false
//   agent:
//     socket_dir: /run/muster           # musterd listens on <socket_dir>/musterd-<node>.sock
//     listen: 0.0.0.0:6818              # optional TCP listener (the controller then presents tokens)
//     spool_dir: /var/spool/muster      # per-node spool under <spool_dir>/<node>
//     script_dir: /dev/shm/muster       # optional: batch scripts of running jobs under
//                                       # <script_dir>/<node>/job<id> and their runs' records under
//                                       # <script_dir>/<node>/runs (default: the spool); a tmpfs
//                                       # spares the disk their files and fsyncs
//     heartbeat_interval: 5
//     gpus: auto                        # auto (NVML if present, else the cluster file's fake GPUs) | nvml | fake
//     nvml_library: libnvidia-ml.so.1   # the NVML library dlopen loads (tests: a fake one)
//     gpu_health: {interval: 10, recover_checks: 3, critical_xids: [48, 63, 64, 74, 79, 92, 94, 95, 119, 120]}
//     health_check: {program: /usr/sbin/nhc, interval: 60}   # Slurm's HealthCheckProgram
//     mps: auto                         # shared GPUs under MPS: auto | off | /path/to/nvidia-cuda-mps-control
//     cgroups: auto                     # auto | off
//     gpu_devices: DIR                  # optional, with fake GPUs: nvidia<N> character devices in
//                                       # DIR stand for them (fencing tried without NVIDIA hardware)
//   tls:                                # optional: TCP between hosts speaks TLS (docs/configuration.md)
//     ca_file: /etc/muster/tls/ca.crt   # the cluster CA: every TCP client verifies servers with it
//     cert_file: /etc/muster/tls/server.crt  # this host's certificate (chain), names it (SANs)
//     key_file: /etc/muster/tls/server.key   # its key; mode 0600
//   scheduler, priority, accounts, queues, qos, preemption: the scheduling sections, read by the
//                                       # controller alone (config/scheduling/scheduling_config.h)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "config/cluster_file.h"
#include "model/gpu.h"

namespace muster {

struct MusterConfig {
  std::string path;                 // the file read (absolute)
  std::string cluster_name;
  ClusterConfig cluster;            // from cluster_file
  std::string cluster_file;         // absolute
  // controller
  std::string ctld_socket;
  std::string ctld_listen;          // "" = no TCP
  // The controllers in order (controller.hosts: primary first), each "host:port" as it listens;
  // empty = one controller, at ctld_socket/ctld_listen. With several, they share a PostgreSQL
  // state and lead by a lease in it (store/store.h's TryLead).
  std::vector<std::string> ctld_hosts;
  int64_t ctld_lease_s = 6;
  std::string state_path;           // an absolute SQLite path, or a postgresql:// URL
  // With a PostgreSQL state: a libpq password file (absolute; "" = none), given to libpq as its
  // `passfile` (store/pg_store.h's PgUrlWithPassfile).
  std::string state_password_file;
  std::string key_file;
  // slurmrestd's REST API (/slurm/v0.0.38/..., docs/api.md): a TCP listener ("" = none; callers
  // present a JWT), and the key JWTs are signed with ("" = none: `scontrol token` and JWT callers
  // are refused); slurm.conf's AuthAltParameters=jwt_key=PATH sets it too.
  std::string rest_listen;
  std::string jwt_key;
  // The longest lifespan `scontrol token` gives a user who is neither root nor an admin (0 = no
  // limit); slurm.conf's AuthAltParameters=max_token_lifespan= sets it too.
  int64_t jwt_max_lifespan_s = 86400;
  int64_t heartbeat_timeout_s = 30;
  int outage_threshold_pct = 55;
  int64_t kill_wait_s = 30;
  int64_t min_job_age_s = 300;
  int64_t first_job_id = 1;         // seeds the id counter of a new state database
  std::string launch_failure = "hold";  // hold | requeue
  std::vector<uint32_t> admin_uids;
  bool allow_root_jobs = false;
  // agent
  std::string agent_socket_dir;
  std::string agent_listen;         // "" = Unix socket only; else "host:port" (port 0: any free port)
  std::string spool_dir;
  std::string script_dir;           // "" = spool_dir
  int64_t heartbeat_interval_s = 5;
  std::string gpus = "auto";
  std::string cgroups = "auto";
  std::string gpu_devices;          // "" = /dev (NVML's devices); else fake GPU i = its i-th nvidia<N>
  std::string nvml_library = "libnvidia-ml.so.1";  // what dlopen loads (a path: that file)
  GpuHealthConfig gpu_health;       // agent.gpu_health: how NVML GPUs are watched
  std::string mps = "auto";         // agent.mps: auto (nvidia-cuda-mps-control if found) | off | its path
  std::string health_check_program; // agent.health_check.program ("" = none), run every
  int64_t health_check_interval_s = 60;  // agent.health_check.interval seconds
  // tls (all three or none; "" = plain TCP): the CA the TCP clients verify servers with, and
  // this host's certificate and key its TCP listeners present. Absolute.
  std::string tls_ca_file;
  std::string tls_cert_file;
  std::string tls_key_file;
  bool tls() const { return !tls_ca_file.empty(); }

  std::string AgentSocket(const std::string& node) const { return agent_socket_dir + "/musterd-" + node + ".sock"; }
};

// Where the commands and the agents look for the controller, in order: controller.hosts, or the
// one controller's listen address ("" when it has none: its Unix socket only).
std::vector<std::string> ControllerAddresses(const MusterConfig& conf);

struct HostPort {
  std::string host;  // without brackets ("::1", "127.0.0.1", "0.0.0.0", "gpu01")
  int port = 0;
};

// "host:port" or "[v6 address]:port", port 0..65535 (0: any free port, for a listener). `what`
// names the setting in the error.
StatusOr<HostPort> ParseHostPort(const std::string& text, const std::string& what);

// "host:port", with brackets around an IPv6 address.
std::string JoinHostPort(const std::string& host, int port);

// The host an agent listening on `listen` (agent.listen) registers with the controller (with the
// port it bound): the listen host, or the node's name when the host is a wildcard ("0.0.0.0",
// "::"), as node names are host names on a multi-host cluster.
std::string AgentAdvertisedHost(const HostPort& listen, const std::string& node);

// A user name (through the system's user database) or a numeric uid, as the uid. Daemons only:
// the command binary is static and makes no user-database lookups (see CMakeLists.txt).
StatusOr<uint32_t> ResolveUser(const std::string& who);

// The top-level sections muster.yaml may have (any other is an error).
inline constexpr std::string_view kMusterConfigSections[] = {
    "cluster", "cluster_file", "controller", "agent", "scheduler", "priority", "accounts", "queues", "qos", "preemption", "tls"};

// Reads and validates (but for the scheduling sections: config/scheduling/scheduling_config.h);
// errors name the file, line and field. The commands, which only need to
// know how to reach the controller, read it as kCommand: the cluster file is skipped (`cluster`
// stays empty, and `cluster_name` is only what muster.yaml says) and admin names are not looked
// up (`admin_uids` holds only the admins written as numeric uids). Every command starts faster
// for it, and the command binary makes no user-database (NSS) lookups of its own.
enum class ConfigReader { kDaemon, kCommand };
StatusOr<MusterConfig> LoadMusterConfig(const std::string& path, ConfigReader reader = ConfigReader::kDaemon);

// The controller's check of controller.state_password_file (none: OK): a regular file that only
// its owner may read (libpq ignores a looser one) and this process can read. Errors name the file.
// (The agents read the same muster.yaml, without the file: they never check it.)
Status CheckStatePasswordFile(const MusterConfig& conf);

// Where the commands look for the configuration: $MUSTER_CONF, else $HOME/.muster/muster.yaml if
// it exists, else /etc/muster/muster.yaml.
std::string DefaultConfigPath();

}  // namespace muster
