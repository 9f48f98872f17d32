// `muster place`: load a cluster and a queue from YAML files, run scheduling cycles, print the
// decisions the way a Slurm user reads them (an sinfo-like header, an squeue-like table, sbatch
// errors for rejected jobs, the nodes and GPUs of every started job, a summary).
//
// Split as every CLI command is: parse (ParsePlaceArgs) -> work (RunPlace, deterministic) ->
// format (FormatPlace, a pure function of its input). PlaceMain ties them together with the files.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "base/status.h"
#include "config/cluster_file.h"
#include "sim/queue_file.h"
#include "sched/decision.h"
#include "sched/scheduler.h"

namespace muster {

struct PlaceArgs {
  bool help = false;  // --help: print PlaceUsage() and nothing else
  std::string cluster_path;
  std::string queue_path;
  bool strict = true;
  int cycles = 1;
};

// The arguments after "place", read with the option engine (sim/tool_args.h). Errors are usage
// errors (exit status 2).
StatusOr<PlaceArgs> ParsePlaceArgs(const std::vector<std::string>& args);
std::string PlaceUsage();

// The outcome of the cycles. Cycle 1 sees the whole queue; after each cycle the started jobs are
// applied to the cluster (ApplyAllocation) and leave the queue with the rejected ones, and the
// next cycle runs on what is left (it should start nothing and keep every reason).
struct PlaceResult {
  std::string cluster_name;
  bool strict = true;
  ClusterSnapshot before;
  ClusterSnapshot after;               // after every cycle's starts
  std::vector<PendingJob> queue;       // as loaded
  std::vector<std::vector<Decision>> cycles;  // decisions of each cycle, in scheduling order
};

PlaceResult RunPlace(const ClusterConfig& cluster, const std::vector<PendingJob>& queue, bool strict, int cycles);

// The report. Pure: depends only on `r`.
std::string FormatPlace(const PlaceResult& r);

// Formats MiB the way Slurm prints sizes when exact ("512G", "2T", "1536M").
std::string FormatMemoryMb(int64_t mb);
// Formats a GPU amount in milli-GPUs: 22500 -> "22.5", 1000 -> "1", 250 -> "0.25".
std::string FormatGpuMilli(int64_t milli);

// The whole command: returns the exit status (0 ok, 1 a file could not be loaded, 2 usage).
int PlaceMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
