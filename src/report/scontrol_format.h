// `scontrol show job|node|partition`: Slurm's Key=Value blocks. Pure; see slurm_format.h for the
// shared conventions. Each block ends with a blank line ("\n\n"), or, one-liner (-o), with "\n".
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "report/slurm_format.h"
#include "model/job_record.h"
#include "model/partition.h"

namespace muster {

// Slurm's _fname_format for StdOut=/StdErr=/StdIn=: %A (the array's id; a job is its own), %a
// (the task; no array: 4294967294), %j, %u, %x; a relative path is under the working directory.
std::string ExpandStdPath(const std::string& pattern, const JobRecord& job);

// One job. `now` gives RunTime of a running job.
// `mps_nodes`: the nodes whose agents run shared GPUs under MPS ("mps" feature): a fractional
// job's GpuShare line says whether its share is enforced.
std::string FormatScontrolJob(const JobRecord& job, int64_t now, bool one_liner = false,
                              const std::set<std::string>& mps_nodes = {});

// Jobs in the order given, as Slurm shows them: the waiting tasks of a job array that have not
// started are one record (Slurm's meta job), the first of them standing for all, with
// "ArrayTaskId=2-7" (and "%N" and ArrayTaskThrottle=N under a limit); a task that runs, ran, or
// waits alone is a record of its own.
// `details` (scontrol -d): Slurm's detail lines too: DerivedExitCode (the highest exit code of the
// job's steps, `derived_exit` by job id; 0 when none is known) and, for a job holding nodes,
// JOB_GRES and a "Nodes=... Mem=... GRES=gpu:N(IDX:...)" line per node.
std::string FormatScontrolJobs(const std::vector<const JobRecord*>& jobs, int64_t now, bool one_liner = false,
                               const std::set<std::string>& mps_nodes = {}, bool details = false,
                               const std::map<int64_t, int>& derived_exit = {});

// One node; `partitions` names the ones that hold it (Partitions=), `usage` what is allocated.
// `details` (scontrol -d): GresDrain= and GresUsed= after Gres=, as Slurm prints them.
std::string FormatScontrolNode(const NodeRecord& node, const std::vector<Partition>& partitions,
                               const NodeActivity& usage, int64_t now, bool one_liner = false,
                               int64_t slurmd_timeout_s = kDefaultSlurmdTimeoutSeconds, bool details = false);

// One partition; `nodes` gives its totals (TotalCPUs=, TRES=).
std::string FormatScontrolPartition(const Partition& partition, const std::vector<NodeRecord>& nodes,
                                    bool one_liner = false);

// scontrol show config: "Configuration data as of <now>", then "Key<padded to 24>= value" a line.
std::string FormatScontrolConfig(const std::vector<std::pair<std::string, std::string>>& config, int64_t now);

}  // namespace muster
