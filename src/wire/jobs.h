// The small requests and answers about jobs, nodes and the controller itself: each names its
// keys once (wire/codec.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "wire/codec.h"

namespace muster {

// An answer with nothing to say: {}.
struct Empty {
  using WireRecord = void;
  template <class V, class Self>
  static void Fields(V&, Self&) {}
};

// POST /v1/jobs/{id}/complete (salloc, srun ending their allocation) and
// POST /v1/jobs/{id}/steps/{step}/done: {"exit_code": N}.
struct ExitCode {
  using WireRecord = void;
  int exit_code = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("exit_code", s.exit_code);
  }
};

// POST /v1/jobs/{id}/update (scontrol update JobId=N Key=Value ...): the fields as scontrol names
// them ("TimeLimit", "Partition", ...), each checked by the controller.
struct JobUpdate {
  using WireRecord = void;
  std::map<std::string, std::string> fields;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("fields", s.fields);
  }
};

// POST /v1/jwt (scontrol token [lifespan=S] [username=NAME]): a JWT for slurmrestd's REST API,
// signed with controller.jwt_key. `lifespan_s` 0: Slurm's default (1800 s); `username` "": the
// caller (another user's: root and admins only).
struct JwtRequest {
  using WireRecord = void;
  int64_t lifespan_s = 0;
  std::string username;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("lifespan_s", s.lifespan_s);
    v("username", s.username);
  }
};

struct JwtAnswer {
  using WireRecord = void;
  std::string token;
  std::string user;
  int64_t expires = 0;  // seconds since the epoch
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("token", s.token);
    v("user", s.user);
    v("expires", s.expires);
  }
};

// POST /v1/nodes/{name} (scontrol update NodeName=... State=... Reason=...).
struct NodeUpdate {
  using WireRecord = void;
  std::string state;
  std::string reason;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("state", s.state);
    v("reason", s.reason);
  }
};

// GET /v1/ping: who the controller takes the caller for.
// GET /v1/ping. With controller.hosts (several controllers sharing a PostgreSQL state), `role` says
// whether this one leads ("leader") or waits ("standby": it answers 503 to every other route), and
// `leader` is the leading controller's address as the store's lease names it ("" = none now).
// A single controller, or an older one that omits the keys, leads.
struct PingAnswer {
  using WireRecord = void;
  std::string cluster;
  bool authenticated = false;
  uint32_t uid = 0;
  std::string role = "leader";  // "leader" | "standby"
  std::string address;          // this controller's entry in controller.hosts ("" = none)
  std::string leader;           // the leader's address, as its lease says
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("cluster", s.cluster);
    v("authenticated", s.authenticated);
    v("uid", s.uid);
    v("role", s.role);
    v("address", s.address);
    v("leader", s.leader);
  }
};

// GET /v1/config (scontrol show config): Slurm's keys and their values, in Slurm's order.
struct ConfigEntry {
  using WireRecord = void;
  std::string key;
  std::string value;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("key", s.key);
    v("value", s.value);
  }
};
struct ConfigAnswer {
  using WireRecord = void;
  std::vector<ConfigEntry> config;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("config", s.config);
  }
};

}  // namespace muster
