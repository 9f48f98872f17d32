#include "config/scheduling/policy_config.h"

#include <yaml-cpp/yaml.h>

#include "base/read_file.h"

namespace muster::config_internal {
namespace {

constexpr int64_t kMaxAmount = int64_t{1} << 40;

// {gpu: N, cpu: N, memory: 2T} -> amounts (absent keys stay unset).
Status ReadAmounts(const MapReader& parent, std::string_view key, TresAmounts* out) {
  const YAML::Node* node = parent.Find(key);
  if (node == nullptr) return Status::Ok();
  ASSIGN_OR_RETURN(MapReader m, MapReader::Make(parent.source(), *node, parent.PathOf(key), {"gpu", "cpu", "memory"}));
  RETURN_IF_ERROR(m.Int("gpu", &out->gpus, 0, kMaxAmount));
  RETURN_IF_ERROR(m.Int("cpu", &out->cpus, 0, kMaxAmount));
  RETURN_IF_ERROR(m.MemoryMb("memory", &out->memory_mb));
  return Status::Ok();
}

Status ReadQueueResource(const MapReader& resources, std::string_view key, int64_t* quota, double* weight,
                         int64_t* limit) {
  const YAML::Node* node = resources.Find(key);
  if (node == nullptr) return Status::Ok();
  ASSIGN_OR_RETURN(MapReader m, MapReader::Make(resources.source(), *node, resources.PathOf(key),
                                                {"quota", "overQuotaWeight", "limit"}));
  // KAI writes -1 for "none"/"unlimited".
  RETURN_IF_ERROR(m.Int("quota", quota, -1, kMaxAmount));
  RETURN_IF_ERROR(m.Int("limit", limit, -1, kMaxAmount));
  if (weight != nullptr) RETURN_IF_ERROR(m.Double("overQuotaWeight", weight, 0, 1e9));
  return Status::Ok();
}

// One KAI Queue object -> an account.
Status ReadQueue(const std::string& source, const YAML::Node& node, const std::string& path, AccountTree* tree) {
  ASSIGN_OR_RETURN(MapReader q, MapReader::Make(source, node, path, {"apiVersion", "kind", "metadata", "spec"}));
  std::string kind;
  RETURN_IF_ERROR(q.String("kind", &kind));
  if (!kind.empty() && kind != "Queue") return q.Error("kind", "expected Queue, not '" + kind + "'");
  const YAML::Node* meta = q.Find("metadata");
  if (meta == nullptr) return q.Missing("metadata");
  ASSIGN_OR_RETURN(MapReader mm, MapReader::Make(source, *meta, q.PathOf("metadata"), {"name", "labels", "annotations"}));
  Account a;
  RETURN_IF_ERROR(mm.String("name", &a.name, /*required=*/true));
  a.quota = {0, kUnlimited, kUnlimited};
  if (const YAML::Node* spec = q.Find("spec")) {
    ASSIGN_OR_RETURN(MapReader sm, MapReader::Make(source, *spec, q.PathOf("spec"),
                                                   {"parentQueue", "resources", "priority", "displayName"}));
    RETURN_IF_ERROR(sm.String("parentQueue", &a.parent));
    if (const YAML::Node* res = sm.Find("resources")) {
      ASSIGN_OR_RETURN(MapReader rm, MapReader::Make(source, *res, sm.PathOf("resources"), {"gpu", "cpu", "memory"}));
      RETURN_IF_ERROR(ReadQueueResource(rm, "gpu", &a.quota.gpus, &a.over_quota_weight, &a.limit.gpus));
      RETURN_IF_ERROR(ReadQueueResource(rm, "cpu", &a.quota.cpus, nullptr, &a.limit.cpus));
      RETURN_IF_ERROR(ReadQueueResource(rm, "memory", &a.quota.memory_mb, nullptr, &a.limit.memory_mb));
    }
  }
  tree->accounts.push_back(std::move(a));
  return Status::Ok();
}

Status ReadQueues(const MapReader& root, const std::string& dir, AccountTree* tree) {
  const YAML::Node* node = root.Find("queues");
  if (node == nullptr) return Status::Ok();
  if (node->IsSequence()) {
    for (size_t i = 0; i < node->size(); ++i) {
      RETURN_IF_ERROR(ReadQueue(root.source(), (*node)[i], "queues[" + std::to_string(i) + "]", tree));
    }
    return Status::Ok();
  }
  if (!node->IsScalar()) return root.Error("queues", "expected a file name or a list of Queue objects");
  std::string file = node->Scalar();
  if (!file.empty() && file[0] != '/') file = dir + "/" + file;
  StatusOr<std::string> text = ReadWholeFile(file);
  if (!text.ok()) return root.Error("queues", "cannot read " + file);
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(*text);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  for (size_t i = 0; i < docs.size(); ++i) {
    if (docs[i].IsNull()) continue;
    RETURN_IF_ERROR(ReadQueue(file, docs[i], "document " + std::to_string(i + 1), tree));
  }
  return Status::Ok();
}

Status ReadMode(const MapReader& m, std::string_view key, PreemptMode* out, bool* set = nullptr) {
  std::string text;
  RETURN_IF_ERROR(m.String(key, &text));
  if (!m.Has(key)) return Status::Ok();
  StatusOr<PreemptMode> mode = ParsePreemptMode(text);
  if (!mode.ok()) return m.Error(key, mode.status().message());
  *out = *mode;
  if (set != nullptr) *set = true;
  return Status::Ok();
}

}  // namespace

Status ReadAccountQueue(const MapReader& m, Account* a) {
  RETURN_IF_ERROR(ReadAmounts(m, "quota", &a->quota));
  RETURN_IF_ERROR(ReadAmounts(m, "limit", &a->limit));
  RETURN_IF_ERROR(m.Double("over_quota_weight", &a->over_quota_weight, 0, 1e9));
  RETURN_IF_ERROR(m.Int("max_jobs", &a->max_jobs, 0, kMaxAmount));
  RETURN_IF_ERROR(m.Int("grp_jobs", &a->grp_jobs, 0, kMaxAmount));
  RETURN_IF_ERROR(m.TimeS("max_wall", &a->max_wall_s));
  RETURN_IF_ERROR(m.Int("max_gpus_per_user", &a->max_gpus_per_user, 0, kMaxAmount));
  RETURN_IF_ERROR(m.StringList("qos", &a->qos));
  return Status::Ok();
}

Status ReadPolicy(const MapReader& root, const std::string& dir, std::vector<Qos>* qos, PreemptionSettings* pre,
                  AccountTree* accounts) {
  const std::string& source = root.source();
  RETURN_IF_ERROR(ReadQueues(root, dir, accounts));
  std::vector<YAML::Node> items;
  RETURN_IF_ERROR(root.List("qos", &items));
  for (size_t i = 0; i < items.size(); ++i) {
    ASSIGN_OR_RETURN(MapReader m, MapReader::Make(source, items[i], "qos[" + std::to_string(i) + "]",
                                                  {"name", "priority", "preempt", "preempt_mode", "grace_time",
                                                   "preempt_exempt_time", "max_gpus_per_user", "max_gpus_per_job",
                                                   "max_jobs_per_user", "max_wall", "grp_gpus"}));
    Qos q;
    RETURN_IF_ERROR(m.String("name", &q.name, /*required=*/true));
    RETURN_IF_ERROR(m.Int("priority", &q.priority, 0, 1000000000));
    RETURN_IF_ERROR(m.StringList("preempt", &q.preempt));
    RETURN_IF_ERROR(ReadMode(m, "preempt_mode", &q.preempt_mode, &q.has_preempt_mode));
    RETURN_IF_ERROR(m.Int("grace_time", &q.grace_time_s, 0, kMaxAmount));
    RETURN_IF_ERROR(m.TimeS("preempt_exempt_time", &q.preempt_exempt_time_s));
    RETURN_IF_ERROR(m.Int("max_gpus_per_user", &q.max_gpus_per_user, 0, kMaxAmount));
    RETURN_IF_ERROR(m.Int("max_gpus_per_job", &q.max_gpus_per_job, 0, kMaxAmount));
    RETURN_IF_ERROR(m.Int("max_jobs_per_user", &q.max_jobs_per_user, 0, kMaxAmount));
    RETURN_IF_ERROR(m.TimeS("max_wall", &q.max_wall_s));
    RETURN_IF_ERROR(m.Int("grp_gpus", &q.grp_gpus, 0, kMaxAmount));
    qos->push_back(std::move(q));
  }
  // Jobs without -q are "normal": it exists even when not listed.
  if (!qos->empty() && FindQos(*qos, kDefaultQosName) == nullptr) qos->push_back(Qos{.name = kDefaultQosName});
  if (Status st = ValidateQosList(*qos); !st.ok()) return root.Error("qos", st.message());
  if (const YAML::Node* node = root.Find("preemption")) {
    ASSIGN_OR_RETURN(MapReader m, MapReader::Make(source, *node, "preemption",
                                                  {"by_qos", "by_partition_tier", "reclaim_quota", "by_priority",
                                                   "mode", "grace_time", "exempt_time"}));
    RETURN_IF_ERROR(m.Bool("by_qos", &pre->by_qos));
    RETURN_IF_ERROR(m.Bool("by_partition_tier", &pre->by_partition_tier));
    RETURN_IF_ERROR(m.Bool("reclaim_quota", &pre->reclaim_quota));
    RETURN_IF_ERROR(m.Bool("by_priority", &pre->by_priority));
    RETURN_IF_ERROR(ReadMode(m, "mode", &pre->mode));
    RETURN_IF_ERROR(m.Int("grace_time", &pre->grace_time_s, 0, kMaxAmount));
    RETURN_IF_ERROR(m.TimeS("exempt_time", &pre->exempt_time_s));
    if (pre->exempt_time_s < 0) return m.Error("exempt_time", "must be a time (UNLIMITED is not one)");
  }
  return Status::Ok();
}

}  // namespace muster::config_internal
