#include "config/scheduling/scheduling_config.h"

#include <filesystem>
#include <memory>

#include "base/strings.h"
#include "config/cluster_settings.h"
#include "config/scheduling/policy_config.h"
#include "config/scheduling/priority_config.h"
#include "config/yaml_reader.h"
#include "model/policy_ops.h"
#include "model/qos.h"
#include "sched/placement_scorer.h"

namespace muster {

using config_internal::MapReader;

namespace {

// The scheduling keys a slurm.conf may set (config/cluster_settings.h: what muster.yaml sets wins).
void ApplyClusterSettings(const ClusterConfig& cluster, const YAML::Node& doc, const std::string& path,
                          SchedulingConfig* c) {
  config_internal::ClusterSettings s(cluster, doc, path, &c->warnings);
  PriorityWeights& w = c->priority.weights;
  s.Int("priority.weights.age", &w.age);
  s.Int("priority.weights.fairshare", &w.fairshare);
  s.Int("priority.weights.job_size", &w.job_size);
  s.Int("priority.weights.partition", &w.partition);
  s.Int("priority.weights.qos", &w.qos);
  s.Int("priority.max_age", &w.max_age_s);
  s.Bool("priority.favor_small", &w.favor_small);
  s.Int("priority.decay_half_life", &c->priority.half_life_s);
  s.Int("priority.calc_period", &c->priority.calc_period_s);
  s.Bool("scheduler.backfill", &c->scheduler.backfill);
  int64_t depth = c->scheduler.backfill_depth;
  s.Int("scheduler.backfill_depth", &depth);
  c->scheduler.backfill_depth = static_cast<int>(depth);
  s.Int("scheduler.backfill_horizon", &c->scheduler.backfill_horizon_s);
  std::string mode = Lower(PreemptModeName(c->preemption.mode));
  s.Text("preemption.mode", &mode);
  if (StatusOr<PreemptMode> m = ParsePreemptMode(mode); m.ok()) c->preemption.mode = *m;
  s.Int("preemption.exempt_time", &c->preemption.exempt_time_s);
  s.Bool("preemption.by_qos", &c->preemption.by_qos);
  s.Bool("preemption.by_partition_tier", &c->preemption.by_partition_tier);
}

}  // namespace

StatusOr<SchedulingConfig> LoadSchedulingConfig(const MusterConfig& conf) {
  SchedulingConfig c;
  const std::string& path = conf.path;
  const std::string dir = std::filesystem::path(path).parent_path().string();
  ASSIGN_OR_RETURN(std::string text, config_internal::ReadTextFile(path));
  ASSIGN_OR_RETURN(YAML::Node doc, config_internal::ParseYaml(text, path));
  ASSIGN_OR_RETURN(MapReader root, MapReader::Make(path, doc, "", kMusterConfigSections));
  RETURN_IF_ERROR(config_internal::ReadPriority(root, &c.priority));
  RETURN_IF_ERROR(config_internal::ReadPolicy(root, dir, &c.qos, &c.preemption, &c.priority.accounts));
  if (Status st = c.priority.accounts.Validate(); !st.ok()) return InvalidArgument(path + ": queues: " + st.message());
  if (Status st = ValidateQosAccess(c.priority.accounts, c.qos); !st.ok()) {
    return InvalidArgument(path + ": accounts: " + st.message());
  }
  if (const YAML::Node* sc = root.Find("scheduler")) {
    ASSIGN_OR_RETURN(MapReader m, MapReader::Make(path, *sc, "scheduler",
                                                  {"backfill", "backfill_depth", "backfill_horizon", "placement", "check_caches"}));
    RETURN_IF_ERROR(m.Bool("backfill", &c.scheduler.backfill));
    RETURN_IF_ERROR(m.Bool("check_caches", &c.check_caches));
    RETURN_IF_ERROR(m.Int("backfill_depth", &c.scheduler.backfill_depth, 1, 100000));
    if (m.Has("backfill_horizon")) {
      RETURN_IF_ERROR(m.TimeS("backfill_horizon", &c.scheduler.backfill_horizon_s));
      if (c.scheduler.backfill_horizon_s <= 0) return m.Error("backfill_horizon", "must be a positive time");
    }
    if (m.Has("placement")) {
      std::string placement;
      RETURN_IF_ERROR(m.String("placement", &placement));
      StatusOr<std::shared_ptr<const PlacementScorer>> scorer = PlacementScorerRegistry::Parse(placement);
      if (!scorer.ok()) return m.Error("placement", scorer.status().message());
      c.scheduler.placement = *std::move(scorer);
    }
  }
  ApplyClusterSettings(conf.cluster, doc, path, &c);
  auto policy = std::make_shared<SchedPolicy>();
  policy->accounts = c.priority.accounts;
  policy->qos = c.qos;
  policy->preemption = c.preemption;
  c.scheduler.policy = std::move(policy);
  return c;
}

}  // namespace muster
