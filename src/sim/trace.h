// Readers for the public GPU cluster traces the simulator replays (../shared/data/traces):
//   openb   Alibaba PAI GPU-sharing trace (FGD, ATC'23): a node list and pod lists;
//   Philly  Microsoft Philly as prepared by the Pollux authors (arrival, duration, GPUs, VC);
//   SWF     the Standard Workload Format of the Parallel Workloads Archive.
// Every reader takes the text (and a name for messages) and returns the rows, or an error that
// names the file and line and what is wrong there ("philly.csv:17: num_gpus 'x' is not a
// number"). Pure: the caller reads the file (ReadTraceFile).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace muster {

// A file's whole text, or NotFound/Internal naming it.
StatusOr<std::string> ReadTraceFile(const std::string& path);

struct OpenbNode {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpus = 0;
  std::string model;  // "" for a node without GPUs
};

struct OpenbPod {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int num_gpu = 0;       // 0..8
  int gpu_milli = 0;     // per GPU, 1..1000 (a fraction of one GPU when num_gpu == 1)
  std::string gpu_spec;  // "" or "V100M16|V100M32": the GPU models it may run on
  std::string qos;
  int64_t creation_s = 0, deletion_s = 0, scheduled_s = 0;
  // What it asks of GPUs in thousandths: num_gpu * gpu_milli.
  int64_t gpu_demand_milli() const { return int64_t{num_gpu} * gpu_milli; }
};

// openb_node_list_*.csv: sn,cpu_milli,memory_mib,gpu,model (columns found by name).
StatusOr<std::vector<OpenbNode>> ParseOpenbNodes(const std::string& text, const std::string& name);
// openb_pod_list_*.csv: name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,qos,pod_phase,
// creation_time,deletion_time,scheduled_time] (columns found by name; the bracketed ones may be
// missing, as in the multigpu lists, and the times empty).
StatusOr<std::vector<OpenbPod>> ParseOpenbPods(const std::string& text, const std::string& name);

struct PhillyJob {
  int64_t id = 0;          // the row's order in the file, from 1
  int64_t arrival_s = 0;   // seconds since the epoch (the trace's times are UTC)
  int64_t duration_s = 0;  // rounded up to whole seconds, at least 1
  int gpus = 0;
  std::string vc;          // virtual cluster id
};

// philly.csv: timestamp ("2017-10-09 07:01:55"),duration,num_gpus,gpu_time,cluster. Rows come
// back sorted by arrival (then file order), as the file is not.
StatusOr<std::vector<PhillyJob>> ParsePhilly(const std::string& text, const std::string& name);

struct SwfJob {
  int64_t id = 0;
  int64_t submit_s = 0;     // from the start of the log
  int64_t wait_s = -1;      // -1: unknown
  int64_t run_s = -1;
  int processors = -1;      // allocated, else requested
  int64_t requested_s = -1; // requested time (the limit)
  int status = -1;          // 1 completed, 0 failed, 5 cancelled, ...
  int user = -1, group = -1, queue = -1, partition = -1;
};

// The Standard Workload Format: 18 whitespace-separated fields a line, ';' comments, -1 unknown.
StatusOr<std::vector<SwfJob>> ParseSwf(const std::string& text, const std::string& name);

// What an SWF log's header comments say of its machine (-1: not given): "; MaxNodes: 128",
// "; MaxProcs: 128".
struct SwfHeader {
  int64_t max_nodes = -1;
  int64_t max_procs = -1;
};
SwfHeader ParseSwfHeader(const std::string& text);

}  // namespace muster
