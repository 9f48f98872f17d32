// JobRequest: what a job asks for, in Slurm's shapes (sbatch/srun options), plus Muster's
// fractional-GPU and MIG requests. Plain value type; ParseJobRequest turns command-line options
// into one. The scheduler resolves it into per-node requirements (sched/request_shape.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/allocation.h"
#include "model/limits.h"
#include "model/option_engine.h"

namespace muster {

struct JobRequest {
  std::string name;                 // -J
  std::string partition;            // -p; "" = the default partition
  int min_nodes = 0;                // -N min[-max]; 0 = not given
  int max_nodes = 0;                // 0 = not given (same as min when only min given)
  int ntasks = 0;                   // -n; 0 = not given
  int ntasks_per_node = 0;          // --ntasks-per-node; 0 = not given
  int cpus_per_task = 1;            // -c
  int64_t mem_per_node_mb = 0;      // --mem; 0 = not given
  int64_t mem_per_cpu_mb = 0;       // --mem-per-cpu
  int64_t mem_per_gpu_mb = 0;       // --mem-per-gpu

  std::string gpu_type;             // "" = any; a model ("a100") or a MIG profile ("1g.18gb")
  int gpus_per_node = 0;            // --gres=gpu[:type]:N or --gpus-per-node=[type:]N
  int gpus_total = 0;               // --gpus / -G =[type:]N (per job)
  int gpus_per_task = 0;            // --gpus-per-task=[type:]N
  int cpus_per_gpu = 0;             // --cpus-per-gpu

  // Fractional GPU (Muster extension, one shared GPU per task/node): by fraction of the GPU
  // (--gpu-fraction=0.25 -> 250 milli) or by GPU memory (--gpu-memory=20G). At most one is set.
  int gpu_milli = 0;
  int64_t gpu_memory_mb = 0;

  std::string constraint;           // --constraint / -C: features joined by '&' (and) or '|' (or)
  bool exclusive = false;           // --exclusive: whole nodes
  bool overcommit = false;          // -O: CPUs as for one task per node (its tasks share them)
  int min_cpus_per_node = 0;        // --mincpus: at least this many CPUs on each node (0: none)
  int64_t tmp_disk_mb = 0;          // --tmp: nodes with at least this much temporary disk
  int64_t time_limit_s = 0;         // --time; 0 = not given (partition default applies)
  std::vector<std::string> nodelist;     // -w, expanded
  std::vector<std::string> exclude;      // -x, expanded

  bool wants_gpus() const { return gpus_per_node > 0 || gpus_total > 0 || gpus_per_task > 0; }
  bool wants_fraction() const { return gpu_milli > 0 || gpu_memory_mb > 0; }

  friend bool operator==(const JobRequest&, const JobRequest&) = default;
};

// Builds a JobRequest from resource options one at a time, as a command reads its own command line
// (its table holds JobRequestOptionTable's options under the same names): each value is checked as
// it comes, the combinations once at Finish. The command so parses its resource options once, and
// sends the request typed; ParseJobRequest is this over a list of words.
class JobRequestBuilder {
 public:
  JobRequestBuilder();
  ~JobRequestBuilder();
  JobRequestBuilder(JobRequestBuilder&&) noexcept;
  JobRequestBuilder& operator=(JobRequestBuilder&&) noexcept;
  // `o` is a resource option (its canonical name one of JobRequestOptionTable's); an error names it
  // ("--time: invalid time specification 'abc' ..."). A repeated option overrides the earlier one.
  Status Apply(const OptionOccurrence& o);
  // The combination checks; the builder is spent after.
  StatusOr<JobRequest> Finish();

 private:
  struct State;
  std::unique_ptr<State> st_;
};

// Parses sbatch/srun-style options ("-N", "2", "--gres=gpu:a100:4", "-c4", "--time=1-00:00:00").
// Options not about resources (-o, -e, --wrap, ...) are not accepted here; the CLI strips them.
// Errors name the option and what was expected, e.g. "--time: invalid time specification 'abc'
// (expected minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS)".
StatusOr<JobRequest> ParseJobRequest(const std::vector<std::string>& args);

// A request that did not come from ParseJobRequest (a typed one, from the wire) checked as the
// parser checks options: every count and size in range, the combinations Slurm refuses.
// ParseJobRequest's requests pass it.
Status ValidateJobRequest(const JobRequest& request);

// The resource options ParseJobRequest knows (sbatch, srun and salloc take them too).
OptionTable JobRequestOptionTable();

// Slurm time specifications ("60", "1:30:00", "2-12", "UNLIMITED") -> seconds; kUnlimited (-1)
// for UNLIMITED/INFINITE.
StatusOr<int64_t> ParseTimeSpec(const std::string& spec);
// Formats seconds the way Slurm prints time limits: "1-02:03:04", "02:03:04", "UNLIMITED".
std::string FormatTimeSpec(int64_t seconds);
// The longest time limit a job may ask (-t): a year. Slurm takes up to INT32_MAX seconds (68
// years); a longer limit than a year is a typing mistake, and UNLIMITED says "none".
inline constexpr int64_t kMaxJobTimeLimitS = 365 * 86400;
// Slurm memory sizes ("500", "500M", "16G", "1T", "1024K") -> MiB (no suffix = MiB).
StatusOr<int64_t> ParseMemoryMb(const std::string& spec);

}  // namespace muster
