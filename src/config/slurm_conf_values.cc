#include "config/slurm_conf_values.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"
#include "model/slurm_syntax.h"

namespace muster::slurm_conf {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

// Names used in gres and constraint syntax: no blanks, ':', ',', '&', '|', brackets (as in
// cluster_file.cc, so both loaders accept the same names).
bool IsPlainName(const std::string& s) {
  if (s.empty() || s.size() > 128) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '+';
  });
}


std::vector<std::string> SplitOn(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    out.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

// Known options, lower case -> canonical key. Slurm's lists (read_config.c), through 24.11: an
// option Slurm knows is accepted here even when Muster does not use it.
const std::map<std::string, std::string>& NodeOptions() {
  static const std::map<std::string, std::string> known = [] {
    std::map<std::string, std::string> m;
    for (const char* k : {"nodename", "bcastaddr", "boards", "corespeccount", "corespersocket", "cpubind", "cpus",
                          "cpuspeclist", "gres", "memspeclimit", "nodeaddr", "nodehostname", "parameters", "port",
                          "realmemory", "reason", "restrictedcorespergpu", "sockets", "socketsperboard", "state",
                          "threadspercore", "tmpdisk", "topology", "tresweights", "weight", "extra"}) {
      m[k] = k;
    }
    m["feature"] = "features";
    m["features"] = "features";
    m["procs"] = "cpus";
    return m;
  }();
  return known;
}

const std::map<std::string, std::string>& PartitionOptions() {
  static const std::map<std::string, std::string> known = [] {
    std::map<std::string, std::string> m;
    for (const char* k :
         {"partitionname", "allocnodes", "allowaccounts", "allowgroups", "allowqos", "alternate", "cpubind",
          "default", "defaulttime", "defcpupergpu", "defmempercpu", "defmempergpu", "defmempernode", "denyaccounts",
          "denyqos", "disablerootjobs", "exclusivetopo", "exclusiveuser", "gracetime", "hidden", "lln",
          "maxcpuspernode", "maxcpuspersocket", "maxmempercpu", "maxmempernode", "maxnodes", "maxtime", "minnodes",
          "nodes", "oversubscribe", "overtimelimit", "powerdownonidle", "preemptmode", "priority",
          "priorityjobfactor", "prioritytier", "qos", "reqresv", "resumetimeout", "rootonly",
          "selecttypeparameters", "shared", "state", "suspendtime", "suspendtimeout", "topology",
          "tresbillingweights"}) {
      m[k] = k;
    }
    return m;
  }();
  return known;
}

const std::map<std::string, std::string>& DownNodesOptions() {
  static const std::map<std::string, std::string> m = {{"downnodes", "downnodes"}, {"reason", "reason"},
                                                       {"state", "state"}};
  return m;
}

const std::map<std::string, std::string>& NodeSetOptions() {
  static const std::map<std::string, std::string> m = {
      {"nodeset", "nodeset"}, {"nodes", "nodes"}, {"feature", "feature"}, {"features", "feature"}};
  return m;
}

const std::map<std::string, std::string>& GresOptions() {
  static const std::map<std::string, std::string> known = [] {
    std::map<std::string, std::string> m;
    for (const char* k : {"nodename", "name", "type", "file", "count", "cores", "cpus", "links", "flags",
                          "autodetect", "multiplefiles"}) {
      m[k] = k;
    }
    return m;
  }();
  return known;
}

// ---- global keys --------------------------------------------------------------------------------

const std::map<std::string, MappedKey>& MappedGlobalKeys() {
  constexpr int64_t kDay = 86400;
  constexpr int64_t kMaxWeight = 1'000'000'000;  // priority.weights' bound
  static const std::map<std::string, MappedKey> keys = {
      {"killwait", {"controller.kill_wait", SettingValue::kSeconds, 0, kDay}},
      {"slurmdtimeout", {"controller.heartbeat_timeout", SettingValue::kSeconds, 1, kDay}},
      // Slurm's MinJobAge=0 keeps records for ever; Muster's 0 drops them at once: not mapped.
      {"minjobage", {"controller.min_job_age", SettingValue::kSeconds, 1, 365 * kDay}},
      {"firstjobid", {"controller.first_job_id", SettingValue::kInt, 1, int64_t{1} << 40}},
      {"disablerootjobs", {"controller.allow_root_jobs", SettingValue::kNotYesNo}},
      {"healthcheckprogram", {"agent.health_check.program", SettingValue::kPath}},
      // HealthCheckInterval=0 (Slurm's default: no checks) is outside the range, so not mapped.
      {"healthcheckinterval", {"agent.health_check.interval", SettingValue::kSeconds, 1, kDay}},
      {"priorityweightage", {"priority.weights.age", SettingValue::kInt, 0, kMaxWeight}},
      {"priorityweightfairshare", {"priority.weights.fairshare", SettingValue::kInt, 0, kMaxWeight}},
      {"priorityweightjobsize", {"priority.weights.job_size", SettingValue::kInt, 0, kMaxWeight}},
      {"priorityweightpartition", {"priority.weights.partition", SettingValue::kInt, 0, kMaxWeight}},
      {"priorityweightqos", {"priority.weights.qos", SettingValue::kInt, 0, kMaxWeight}},
      {"prioritymaxage", {"priority.max_age", SettingValue::kTime, 1, 10'000 * kDay}},
      {"prioritydecayhalflife", {"priority.decay_half_life", SettingValue::kTime, 0, 10'000 * kDay}},
      {"prioritycalcperiod", {"priority.calc_period", SettingValue::kTime, 0, kDay}},
      {"priorityfavorsmall", {"priority.favor_small", SettingValue::kYesNo}},
      {"preemptmode", {"preemption.mode", SettingValue::kPreemptMode}},
      {"preemptexempttime", {"preemption.exempt_time", SettingValue::kTime, 0, 10'000 * kDay}},
  };
  return keys;
}

const std::map<std::string, std::pair<const char*, int64_t>>& MappedSchedulerParameters() {
  static const std::map<std::string, std::pair<const char*, int64_t>> options = {
      {"bf_window", {"scheduler.backfill_horizon", 60}},
      {"bf_max_job_test", {"scheduler.backfill_depth", 1}},
  };
  return options;
}

namespace {

// Slurm's global keys (read_config.c's slurm_conf_options, 22.05 to 24.11, and a few removed
// since that old files still carry) that Muster has no use for: its controller, agents and store
// take their place, or they tune a mechanism Muster does not have a counterpart of that matters.
constexpr const char* kHarmlessKeys[] = {
    "AccountingStorageBackupHost", "AccountingStorageExternalHost", "AccountingStorageHost",
    "AccountingStorageParameters", "AccountingStoragePass", "AccountingStoragePort", "AccountingStorageTRES",
    "AccountingStorageType", "AccountingStorageUser", "AccountingStoreFlags", "AccountingStoreJobComment",
    "AcctGatherEnergyType", "AcctGatherFilesystemType", "AcctGatherInfinibandType", "AcctGatherInterconnectType",
    "AcctGatherNodeFreq", "AcctGatherProfileType", "AuthAltParameters", "AuthAltTypes", "AuthInfo", "AuthType",
    "BackupAddr", "BackupController", "CacheGroups", "CertgenParameters", "CertgenType", "CertmgrParameters",
    "CertmgrType", "CheckpointType", "CommunicationParameters", "ControlAddr", "ControlMachine", "CoreSpecPlugin",
    "CredType", "CryptoType", "DataParserParameters", "DebugFlags", "DefRuntimePlugin", "EioTimeout",
    "ExtSensorsFreq", "ExtSensorsType", "FastSchedule", "GresTypes", "GroupUpdateForce", "GroupUpdateTime",
    "HashPlugin", "HttpParserType", "JobAcctGatherFrequency", "JobAcctGatherParams", "JobAcctGatherType",
    "JobCompHost", "JobCompLoc", "JobCompParams", "JobCompPass", "JobCompPassScript", "JobCompPort",
    "JobCompType", "JobCompUser", "JobCredentialPrivateKey", "JobCredentialPublicCertificate", "KeepAliveTime",
    "LaunchType", "LogTimeFormat", "MaxDBDMsgs", "MessageTimeout", "MetricsAuthUsers", "MetricsParameters",
    "MetricsType", "MpiDefault", "MpiParams", "PluginDir", "PlugStackConfig", "ProctrackType", "RoutePlugin",
    "SelectType", "SelectTypeParameters", "SerializerParameters", "SerializerPlugins", "SlurmctldAddr",
    "SlurmctldDebug", "SlurmctldHost", "SlurmctldHttpAuthParameters", "SlurmctldLogFile", "SlurmctldParameters",
    "SlurmctldPidFile", "SlurmctldPort", "SlurmctldSyslogDebug", "SlurmctldTimeout", "SlurmdDebug",
    "SlurmdHttpAuthParameters", "SlurmdLogFile", "SlurmdParameters", "SlurmdPidFile", "SlurmdPort",
    "SlurmdSpoolDir", "SlurmdSyslogDebug", "SlurmdUser", "SlurmrestdHttpAuthParameters", "SlurmrestdParameters",
    "SlurmSchedLogFile", "SlurmSchedLogLevel", "SlurmstepdParameters", "SlurmUser", "SrunPortRange",
    "StateSaveLocation", "SwitchParameters", "SwitchType", "TaskPlugin", "TaskPluginParam", "TCPTimeout",
    "TLSParameters", "TLSType", "TmpFS", "TreeWidth", "UrlParserType",
};

// Slurm's global keys for behaviours Muster does not have (or has only through muster.yaml in
// another shape): read, warned about by name, and ignored.
constexpr const char* kUnsupportedKeys[] = {
    "AccountingStorageEnforce", "AllowSpecResourcesUsage", "BatchStartTimeout", "BcastExclude", "BcastParameters",
    "BurstBufferParameters", "BurstBufferType", "CliFilterParameters", "CliFilterPlugins", "CompleteWait",
    "CpuFreqDef", "CpuFreqGovernors", "DefCPUPerGPU", "DefMemPerGPU", "DefMemPerNode", "DependencyParameters",
    "EnforcePartLimits", "Epilog", "EpilogMsgTime", "EpilogSlurmctld", "EpilogTimeout", "FairShareDampeningFactor",
    "FederationParameters", "GetEnvTimeout", "GpuFreqDef", "HealthCheckNodeState", "HealthCheckTimeout",
    "InactiveLimit", "InteractiveStepOptions", "JobContainerType", "JobFileAppend", "JobRequeue",
    "JobSubmitPlugins", "KillOnBadExit", "LaunchParameters", "LicenseParameters", "Licenses", "MailDomain",
    "MailProg", "MaxArraySize", "MaxBatchRequeue", "MaxJobCount", "MaxJobId", "MaxMemPerCPU", "MaxMemPerNode",
    "MaxNodeCount", "MaxStepCount", "MaxTasksPerNode", "MCSParameters", "MCSPlugin", "NamespaceType",
    "NodeFeaturesPlugins", "OverTimeLimit", "PowerParameters", "PowerPlugin", "PreemptParameters",
    "PrEpParameters", "PrEpPlugins", "PriorityFlags", "PriorityParameters", "PrioritySiteFactorParameters",
    "PrioritySiteFactorPlugin", "PriorityType", "PriorityUsageResetPeriod", "PriorityWeightAssoc",
    "PriorityWeightTRES", "PrivateData", "Prolog", "PrologEpilogTimeout", "PrologFlags", "PrologSlurmctld",
    "PrologTimeout", "PropagatePrioProcess", "PropagateResourceLimits", "PropagateResourceLimitsExcept",
    "RebootProgram", "ReconfigFlags", "RequeueExit", "RequeueExitHold", "ResumeFailProgram", "ResumeProgram",
    "ResumeRate", "ResumeTimeout", "ResvEpilog", "ResvOverRun", "ResvProlog", "ReturnToService",
    "SallocDefaultCommand", "SbcastParameters", "SchedulerTimeSlice", "ScronParameters",
    "SlurmctldPrimaryOffProg", "SlurmctldPrimaryOnProg", "SrunEpilog", "SrunProlog", "SuspendExcNodes",
    "SuspendExcParts", "SuspendExcStates", "SuspendProgram", "SuspendRate", "SuspendTime", "SuspendTimeout",
    "TaskEpilog", "TaskProlog", "TopologyParam", "TrackWCKey", "UnkillableStepProgram", "UnkillableStepTimeout",
    "UsePAM", "VSizeFactor", "WaitTime",
};

}  // namespace

GlobalKeyUse ClassifyGlobalKey(const std::string& lower, std::string* name) {
  static const std::map<std::string, std::pair<std::string, GlobalKeyUse>> table = [] {
    std::map<std::string, std::pair<std::string, GlobalKeyUse>> m;
    for (const char* k : kHarmlessKeys) m[Lower(k)] = {k, GlobalKeyUse::kHarmless};
    for (const char* k : kUnsupportedKeys) m[Lower(k)] = {k, GlobalKeyUse::kUnsupported};
    return m;
  }();
  const auto it = table.find(lower);
  if (it == table.end()) return GlobalKeyUse::kUnknown;
  *name = it->second.first;
  return it->second.second;
}

const std::map<std::string, std::string>& UnsupportedNodeOptions() {
  static const std::map<std::string, std::string> options = {
      {"corespeccount", "0"}, {"cpubind", ""},    {"cpuspeclist", ""}, {"memspeclimit", "0"},
      {"restrictedcorespergpu", "0"}, {"tresweights", ""}, {"weight", "1"},
  };
  return options;
}

const std::map<std::string, std::string>& UnsupportedPartitionOptions() {
  static const std::map<std::string, std::string> options = {
      {"allocnodes", "all"},        {"alternate", ""},           {"cpubind", ""},
      {"defcpupergpu", ""},         {"defmempergpu", ""},        {"defmempernode", "unlimited"},
      {"disablerootjobs", "no"},    {"exclusivetopo", "no"},     {"exclusiveuser", "no"},
      {"hidden", "no"},             {"lln", "no"},               {"maxcpuspernode", "unlimited"},
      {"maxcpuspersocket", "unlimited"}, {"maxmempercpu", "unlimited"}, {"maxmempernode", "unlimited"},
      {"oversubscribe", "no"},      {"overtimelimit", "none"},   {"powerdownonidle", "no"},
      {"priorityjobfactor", "1"},   {"qos", ""},                 {"reqresv", "no"},
      {"resumetimeout", ""},        {"rootonly", "no"},          {"selecttypeparameters", ""},
      {"shared", "no"},             {"suspendtime", ""},         {"suspendtimeout", ""},
      {"topology", ""},             {"tresbillingweights", ""},
  };
  return options;
}

// A node's State= (or a DownNodes line's): how it maps onto Node. Slurm reads these names in
// state_str2int; CLOUD nodes (powered down until needed) and UNKNOWN nodes (state learnt when
// their daemon registers) start out available.
StatusOr<NodeStateValue> ParseNodeState(const std::string& v) {
  const std::string s = Lower(v);
  if (s == "unknown" || s == "idle" || s == "cloud") return NodeStateValue{NodeState::kIdle, false};
  if (s == "down" || s == "fail") return NodeStateValue{NodeState::kDown, false};
  if (s == "drain" || s == "failing") return NodeStateValue{NodeState::kIdle, true};
  if (s == "future") return NodeStateValue{NodeState::kFuture, false};
  return InvalidArgument("unknown node state (expected UNKNOWN, IDLE, CLOUD, DOWN, DRAIN, FAIL, FAILING or FUTURE)");
}

// Parses Gres=; non-gpu gres (mps, shard, nic, ...) are skipped.
StatusOr<std::vector<GresSpec>> ParseGres(const std::string& value) {
  std::vector<GresSpec> out;
  // Split on ',' outside parentheses: "gpu:a100:2(S:0,1),gpu:v100:1".
  std::vector<std::string> items;
  std::string cur;
  int depth = 0;
  for (char c : value) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) return InvalidArgument("unbalanced parentheses");
  items.push_back(cur);
  int64_t total = 0;
  for (const std::string& item : items) {
    std::string spec = item;
    if (size_t paren = spec.find('('); paren != std::string::npos) {
      if (spec.back() != ')') return InvalidArgument("text after the ')' of " + SlurmConfQuote(item));
      spec.erase(paren);
    }
    if (spec.empty()) return InvalidArgument("an empty gres in the list");
    std::vector<std::string> parts = SplitOn(spec, ':');
    if (Lower(parts[0]) != "gpu") continue;
    parts.erase(parts.begin());
    auto no_consume = [](const std::string& p) { return Lower(p) == "no_consume"; };
    parts.erase(std::remove_if(parts.begin(), parts.end(), no_consume), parts.end());
    GresSpec g;
    int64_t count = 1;
    if (!parts.empty() && ParseSlurmConfInt(parts.back(), &count)) parts.pop_back();
    if (parts.size() > 1) return InvalidArgument("expected gpu[:type]:count, got " + SlurmConfQuote(item));
    if (parts.size() == 1) {
      if (!IsPlainName(parts[0])) return InvalidArgument("invalid GPU type " + SlurmConfQuote(parts[0]));
      g.type = parts[0];
    }
    total += count;
    if (total > kMaxDevicesPerNode) {
      return InvalidArgument("more than " + std::to_string(kMaxDevicesPerNode) + " GPUs on a node");
    }
    g.count = static_cast<int>(count);
    if (g.count > 0) out.push_back(std::move(g));
  }
  return out;
}

// A gres type that is a MIG profile ("1g.10gb", "3g.40gb", or one after a model and '_', as in
// "a100_3g.40gb"): such devices are MIG slices, as Slurm's own MIG examples name them. Returns the
// slice's memory in MiB, or 0 if the type is not a profile.
int64_t MigProfileMemoryMb(const std::string& full_type) {
  const size_t underscore = full_type.rfind('_');
  const std::string type = underscore == std::string::npos ? full_type : full_type.substr(underscore + 1);
  size_t i = 0;
  while (i < type.size() && i < 3 && IsDigit(type[i])) ++i;
  if (i == 0 || type.compare(i, 2, "g.") != 0) return 0;
  size_t j = i + 2, k = j;
  while (k < type.size() && k - j < 6 && IsDigit(type[k])) ++k;
  if (k == j || type.compare(k, std::string::npos, "gb") != 0) return 0;
  int64_t gb = 0;
  if (!ParseSlurmConfInt(std::string_view(type).substr(j, k - j), &gb) || gb == 0) return 0;
  return gb * 1024;
}

// "gpu:a100:4,gpu:2" for messages.
std::string FormatGres(const std::vector<std::pair<std::string, int>>& by_type) {
  std::string out;
  for (const auto& [type, count] : by_type) {
    if (!out.empty()) out += ",";
    out += "gpu:" + (type.empty() ? "" : type + ":") + std::to_string(count);
  }
  return out.empty() ? "no GPUs" : out;
}

}  // namespace muster::slurm_conf
