#include "store/migrate.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "store/pg_store.h"

namespace muster {
namespace {

using Meta = std::map<std::string, std::string>;
constexpr size_t kJobsPerSave = 500;  // one transaction each: bounds the destination's batch

template <typename T, typename Key>
Status SameRecords(const std::vector<T>& want, const std::vector<T>& got, const std::string& what, Key key) {
  for (size_t i = 0; i < std::min(want.size(), got.size()); ++i) {
    if (!(want[i] == got[i])) return Internal("after copying, " + what + " " + key(want[i]) + " reads back different");
  }
  if (want.size() != got.size()) {
    return Internal("after copying, the destination holds " + std::to_string(got.size()) + " " + what + "s, not " +
                    std::to_string(want.size()));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<MigrationCounts> CopyStore(Store& from, Store& to) {
  ASSIGN_OR_RETURN(std::vector<JobRecord> have_jobs, to.LoadJobs());
  ASSIGN_OR_RETURN(std::vector<NodeRecord> have_nodes, to.LoadNodes());
  ASSIGN_OR_RETURN(std::vector<StepRecord> have_steps, to.LoadSteps());
  ASSIGN_OR_RETURN(Meta have_meta, to.LoadMeta());
  if (!have_jobs.empty() || !have_nodes.empty() || !have_steps.empty() || !have_meta.empty()) {
    return FailedPrecondition("the destination is not empty (" + std::to_string(have_jobs.size()) + " jobs, " +
                              std::to_string(have_nodes.size()) + " nodes, " + std::to_string(have_steps.size()) +
                              " steps, " + std::to_string(have_meta.size()) + " meta keys)");
  }
  MigrationCounts n;
  ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, from.LoadJobs());
  for (size_t i = 0; i < jobs.size(); i += kJobsPerSave) {
    const size_t len = std::min(kJobsPerSave, jobs.size() - i);
    RETURN_IF_ERROR(to.SaveJobs(std::span<const JobRecord>(jobs.data() + i, len)).WithPrefix("copy jobs"));
  }
  ASSIGN_OR_RETURN(std::vector<NodeRecord> nodes, from.LoadNodes());
  for (const NodeRecord& node : nodes) RETURN_IF_ERROR(to.SaveNode(node).WithPrefix("copy node " + node.node.name));
  ASSIGN_OR_RETURN(std::vector<StepRecord> steps, from.LoadSteps());
  for (const StepRecord& step : steps) RETURN_IF_ERROR(to.SaveStep(step).WithPrefix("copy a step"));
  ASSIGN_OR_RETURN(Meta meta, from.LoadMeta());
  for (const auto& [key, value] : meta) RETURN_IF_ERROR(to.SetMeta(key, value).WithPrefix("copy meta " + key));

  // Read everything back and compare.
  ASSIGN_OR_RETURN(std::vector<JobRecord> jobs_back, to.LoadJobs());
  RETURN_IF_ERROR(SameRecords(jobs, jobs_back, "job", [](const JobRecord& j) { return std::to_string(j.id); }));
  ASSIGN_OR_RETURN(std::vector<NodeRecord> nodes_back, to.LoadNodes());
  RETURN_IF_ERROR(SameRecords(nodes, nodes_back, "node", [](const NodeRecord& r) { return r.node.name; }));
  ASSIGN_OR_RETURN(std::vector<StepRecord> steps_back, to.LoadSteps());
  RETURN_IF_ERROR(SameRecords(steps, steps_back, "step", [](const StepRecord& s) {
    return std::to_string(s.job_id) + "." + std::to_string(s.step_id);
  }));
  ASSIGN_OR_RETURN(Meta meta_back, to.LoadMeta());
  if (meta_back != meta) return Internal("after copying, the destination's meta keys read back different");
  n.jobs = jobs.size();
  n.nodes = nodes.size();
  n.steps = steps.size();
  n.meta = meta.size();
  return n;
}

StatusOr<MigrationCounts> MigrateStore(const std::string& from, const std::string& to) {
  if (from == to) return InvalidArgument("--from and --to name the same store");
  if (!IsPostgresUrl(from)) {
    const std::string path = from.rfind("sqlite:", 0) == 0 ? from.substr(7) : from;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return NotFound("--from: SQLite store '" + path + "' does not exist");
  }
  StatusOr<std::unique_ptr<Store>> source = OpenStore(from);
  if (!source.ok()) return source.status().WithPrefix("--from " + StoreLocationForDisplay(from));
  // The source's next id (this takes one: the source is being retired) seeds the destination.
  ASSIGN_OR_RETURN(int64_t next, (*source)->AllocateJobIds(1));
  StatusOr<std::unique_ptr<Store>> dest = OpenStore(to, next);
  if (!dest.ok()) return dest.status().WithPrefix("--to " + StoreLocationForDisplay(to));
  StatusOr<MigrationCounts> n = CopyStore(**source, **dest);
  if (!n.ok()) return n.status().WithPrefix("migrate " + StoreLocationForDisplay(from) + " to " + StoreLocationForDisplay(to));
  n->next_job_id = next;
  return n;
}

}  // namespace muster
