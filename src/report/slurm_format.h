// Pieces shared by the Slurm-compatible output of squeue, sinfo and scontrol (the format half of
// those commands): field padding, Slurm's time and size formats, what a job or node record shows
// for values Slurm derives (elapsed time, CPU count, node state), and the "not found" outputs.
//
// Everything here is a pure function of its arguments. Times are seconds since the epoch and are
// printed in the process's local time zone, as Slurm prints them. The per-command formatters are in
// squeue_format.h, sinfo_format.h and scontrol_format.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/job_record.h"
#include "model/partition.h"

namespace muster {

// What a command prints and its exit status.
struct SlurmOutput {
  int exit_code = 0;
  std::string out;
  std::string err;
};

// ---- Printing primitives -------------------------------------------------------------------

// One %-field as squeue and sinfo print it (their _print_str): cut to `width`, then padded with
// blanks on the right (left-justified) or the left (right-justified). Width 0: as is.
std::string PrintField(std::string_view value, int width, bool right);

// Elapsed time and limits as squeue and sinfo print them: "0:03", "10:00", "1:02:03",
// "1-02:03:04"; "INVALID" when negative or longer than a year (Slurm's _print_secs).
std::string FormatElapsed(int64_t seconds);

// Seconds as Slurm's date format "2026-11-30T03:12:59", in local time; `unset` when t is 0.
std::string FormatSlurmTime(int64_t t, const char* unset = "Unknown");

// The date line over `squeue -l` and `sinfo -l`: "Mon Nov 30 03:13:02 2026" (ctime, local time).
std::string FormatDateLine(int64_t now);

// MiB with Slurm's unit conversion: exact (only while nothing is lost: 500M, 2000M, 2G, 2.50G),
// as in job TRES, AllocTRES and MIN_MEMORY; or rounded (62.50G, 250G), as in a node's CfgTRES and
// a partition's TRES.
std::string FormatMemoryExact(int64_t mb);
std::string FormatMemoryRounded(int64_t mb);

// One "%[.][size]type[suffix]" of a format. Slurm's syntax, plus "%-10j" (an explicit left
// justification, the default anyway).
// The most fields a -o format may have, and the most columns their widths and text may add up to.
inline constexpr size_t kMaxFormatFields = 100;
inline constexpr int64_t kMaxFormatWidth = 4096;

struct FormatField {
  char type = 0;
  int width = 0;       // 0 = as wide as the value
  bool right = false;  // '.': right-justified
  bool computed = false;  // '#' (sinfo): width from the records
  std::string suffix;  // literal text printed after the field
};

// Splits a format as Slurm does: text before the first '%' is dropped, "%%" does not print a '%'.
// Field types are not checked here.
// `what` names the command in the error for a field with no type ("job" or "node").
StatusOr<std::vector<FormatField>> ParseFormat(std::string_view format, const char* what);

// ---- Nodes ----------------------------------------------------------------------------------

// What is allocated on a node right now, and what its agent last reported; the controller supplies
// it (UsageFromJobs gives the allocated part from the running jobs).
struct NodeActivity {
  int cpus = 0;                  // allocated CPUs (Slurm's CPUAlloc)
  int gpus = 0;                  // allocated GPUs (a shared GPU counts once)
  int64_t memory_mb = 0;         // allocated memory (AllocMem)
  double cpu_load = -1;          // load average; < 0 = not reported
  int64_t free_memory_mb = -1;   // < 0 = not reported
  int64_t last_busy = 0;         // when it last had work; 0 = unknown
};
using NodeActivityMap = std::map<std::string, NodeActivity>;

// Sums the allocations of the jobs that hold resources (running, suspended, completing).
NodeActivityMap UsageFromJobs(const std::vector<JobRecord>& jobs);
// The same from the controller's per-node sums (GET /v1/nodes "allocated").
NodeActivityMap UsageFromAllocated(const std::map<std::string, NodeAllocated>& by_node);

// Slurm's SlurmdTimeout default: a node silent for longer is "not responding" ('*').
inline constexpr int64_t kDefaultSlurmdTimeoutSeconds = 300;
bool NodeResponding(const NodeRecord& node, int64_t now, int64_t timeout_s = kDefaultSlurmdTimeoutSeconds);

// A node's state in Slurm's three spellings. The base state comes from the record for down, future
// and unknown nodes; otherwise from the usage, as Slurm derives it: idle with nothing allocated,
// allocated when every CPU is, mixed in between (or with only GPUs allocated).
struct SlurmNodeState {
  std::string compact;   // sinfo %t: "idle", "mix", "alloc", "drain", "drng", "down*", ...
  std::string long_name; // sinfo %T: "idle", "mixed", "allocated", "drained", "draining", ...
  std::string complete;  // scontrol State=: "IDLE", "MIXED+DRAIN", "DOWN+NOT_RESPONDING", ...
  int sort_rank = 0;     // Slurm's numeric state (base | flags), for sinfo's "-t" order
};
SlurmNodeState NodeStateOf(const NodeRecord& node, const NodeActivity& usage, bool responding);

// "gpu:h100:8", "gpu:8" (no model), "gpu:a100:4,gpu:1g.10gb:2"; "(null)" without GPUs.
std::string NodeGres(const Node& node);

// ---- Jobs -----------------------------------------------------------------------------------

// Seconds the job has run: now - start while it runs, end - start once ended, 0 before.
int64_t JobElapsed(const JobRecord& job, int64_t now);
// The end time Slurm shows: the real one once ended; start + limit while running (a year for
// UNLIMITED, as slurmctld sets it); 0 before the start.
int64_t JobExpectedEnd(const JobRecord& job);
int JobNodeCount(const JobRecord& job);     // allocated nodes, else the requested minimum (>= 1)
int64_t JobCpuCount(const JobRecord& job);  // allocated CPUs, else the requested ones (>= 1)
int JobTaskCount(const JobRecord& job);     // -n, else --ntasks-per-node x nodes, else 1
int64_t JobGpuCount(const JobRecord& job);  // allocated GPUs, else requested ones
int64_t JobMemoryMb(const JobRecord& job);  // allocated memory, else requested (0 = none asked)
std::string JobNodeList(const JobRecord& job);  // compressed allocation ("" before the start)
// The reason as squeue's (REASON) and scontrol's Reason= show it: "Resources",
// "ReqNodeNotAvail, UnavailableNodes:n[3-4]" (the detail after a comma), "None".
std::string JobReason(const JobRecord& job);
// Slurm's per-TRES request strings: "gres:gpu:4", "gres:gpu:a100:2"; "" when not requested.
std::string JobTresPerNode(const JobRecord& job);
std::string JobTresPerJob(const JobRecord& job);
std::string JobTresPerTask(const JobRecord& job);
// "cpu=4,mem=2000M,node=1,billing=4,gres/gpu=8" (scontrol TRES=).
std::string JobTres(const JobRecord& job);
// The QOS every Muster job shows (Muster has no QOS yet; Slurm's default QOS is "normal").
inline constexpr char kDefaultQos[] = "normal";  // a job's QOS when it names none

// ---- Errors, as Slurm prints them ----------------------------------------------------------

// `squeue -j 999999` and `scontrol show job 999999`.
SlurmOutput InvalidJobIdError();
SlurmOutput NodeNotFoundError(const std::string& name);            // scontrol show node
SlurmOutput PartitionNotFoundError(const std::string& name);       // scontrol show partition
// `scancel 999999`: Slurm prints nothing and exits 0 (captured); with -v it says why.
SlurmOutput ScancelInvalidJob(int64_t job_id, bool verbose = false);

}  // namespace muster
