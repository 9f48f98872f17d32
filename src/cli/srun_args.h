// srun's pure parts: option parsing (getopt_long "+" rules: options stop at the command),
// task labels (-l), and Slurm's messages for task exits and interrupts. No I/O.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/job_options.h"
#include "model/option_engine.h"
#include "model/step_layout.h"

namespace muster {

struct SrunOptions {
  int ntasks = 0;                    // -n/--ntasks; 0 = not given
  int nnodes = 0;                    // -N/--nodes; 0 = not given
  int ntasks_per_node = 0;           // --ntasks-per-node; 0 = not given
  bool label = false;                // -l/--label: "<task id>: " before every line
  bool pty = false;                  // --pty: task 0 on a pseudo-terminal, srun's terminal in raw mode
  bool unbuffered = false;           // -u: output passed on as it comes (else whole lines per task)
  std::string job_name;              // -J/--job-name: the step's name ("" = the command's base name)
  bool kill_on_bad_exit = false;     // -K/--kill-on-bad-exit[=0|1]: a task exiting non-zero ends the step
  bool help = false;                 // -h/--help
  bool usage = false;                // --usage
  bool version = false;              // -V/--version
  std::vector<std::string> command;  // the program and its arguments
  // For a new allocation (srun outside one), as sbatch takes them: "--gres=gpu:2", "--time=10".
  std::vector<std::string> resource_args;
  std::string account;               // -A
  std::string qos;                   // -q
  int64_t jobid = 0;                 // --jobid: run the step in this job (0 = SLURM_JOB_ID's)
  int het_group = -1;                // --het-group=N: in component N of the heterogeneous job (-1: none)
  std::string export_mode;           // --export as given ("" = ALL); see ExportedEnvironment
  bool multi_prog = false;           // --multi-prog: command[0] is a configuration file
  // -o/-e/-i as given: a file name pattern (%t %n %N %j %J %s %u %x %A %a %%), "none", or a task
  // id (only that task's stream comes to srun). "" = every task's stream comes to srun.
  std::string output, error, input;
  std::string task_prolog, task_epilog;  // --task-prolog/--task-epilog: run by each task's node
  int immediate = -1;                // -I/--immediate[=secs]: give up on a new allocation after secs (-1 = wait)
  std::string cpu_bind;              // --cpu-bind as given: nothing binds; srun says so
  bool overlap = false;              // --overlap: the step shares the CPUs other steps hold
  bool overcommit = false;           // -O: more tasks than the job's CPUs on a node
  bool exact = false;                // --exact: only the CPUs its tasks need (also --exclusive and -c
                                     // inside an allocation)
  int cpus_per_task = 0;             // -c (also in resource_args, for a new allocation); 0 = not given
  // --mem (per node; 0 = all the job's there), --mem-per-cpu and --mem-per-gpu in MiB, -1 = not
  // given (also in resource_args): inside an allocation they size the step's memory.
  int64_t mem_mb = -1;
  int64_t mem_per_cpu_mb = -1;
  int64_t mem_per_gpu_mb = -1;
  bool exclusive = false;            // --exclusive (also in resource_args)
  // --gres=gpu[:type]:N / none, -G/--gpus, --gpus-per-node, --gpus-per-task (also in
  // resource_args): inside an allocation they choose the step's GPUs (default: all the job's).
  StepGpuRequest gpus;
  // --gpu-bind: each task gets this many of the step's GPUs on its node (per_task:N; implied by
  // --gpus-per-task, as in Slurm); 0 = every task sees all of them (--gpu-bind=none).
  int gpu_bind_per_task = -1;  // -1 = not given
  // --gpu-bind=map_gpu:<list> / mask_gpu:<list>: the task with local id L sees entry L % size of
  // the step's GPUs on its node, by index among them (map_gpu:0,1 -> {{0},{1}}; mask_gpu:0x3,0xC
  // -> {{0,1},{2,3}}), as Slurm binds under ConstrainDevices.
  std::vector<std::vector<int>> gpu_bind_map;
  // --gpu-bind=single:N: task with local id L sees the step's (L / N)-th GPU on its node.
  int gpu_bind_single = 0;
  // -Z/--no-allocate: run on the -w nodes without a job (root and the cluster's own user only).
  bool no_allocate = false;
  // -t/--time (also in resource_args): inside an allocation the step's time limit, in seconds
  // (0 = none, as UNLIMITED).
  int64_t time_limit_s = 0;
  std::string chdir;                 // -D/--chdir: the tasks' directory ("" = srun's own)
  bool hold = false;                 // -H/--hold: a new allocation is submitted held
  bool test_only = false;            // --test-only: when and where a new allocation would start
  bool quit_on_interrupt = false;    // --quit-on-interrupt, -X: one Ctrl-C signals the tasks
  JobOptions options;                // --comment, ...: a new allocation's (model/job_options.h)
  std::string dependency;            // -d/--dependency: a new allocation's
  int64_t nice = 0;                  // --nice[=adj]: a new allocation's
  int verbose = 0;                   // -v (repeated), SLURM_DEBUG: Slurm's verbose lines on stderr
  bool ntasks_per_node_cli = false;  // --ntasks-per-node came from the command line (not SLURM_NTASKS_PER_NODE)
  // What was set, by the command line or srun's input variables, as srun -v lists it ("defined
  // options"): (Slurm's name, value as Slurm shows it), in Slurm's order.
  std::vector<std::pair<std::string, std::string>> defined;
};

// One line of a --multi-prog file, for the tasks it names.
struct MultiProgEntry {
  std::vector<int> tasks;         // task ids, in the order given
  std::vector<std::string> argv;  // with %t and %o still in place
};
// Parses a --multi-prog configuration file for a step of `ntasks` tasks (Slurm's format: "ranks
// program args...", ranks "0", "1-3,5" or "*", '#' comments, '...' and "..." quoting) and gives
// every task its argv (%t: the task id, %o: its offset within the line's ranks). Errors are
// srun's message lines; a task no line names is an error.
StatusOr<std::vector<std::vector<std::string>>> ParseMultiProg(const std::string& text, const std::string& path,
                                                               int ntasks);

// Errors carry the text to print on stderr (Slurm's words, "srun: ..." lines) and mean exit 1.
// With `getenv`, srun's input variables (SrunEnvironmentArgs) come first, the command line after
// them overriding, and SLURM_JOB_ID / SLURM_JOB_NODELIST join the defined options as Slurm's do.
StatusOr<SrunOptions> ParseSrunArgs(const std::vector<std::string>& args,
                                    const std::function<const char*(const char*)>& getenv = nullptr);

// srun's input environment variables (Slurm 22.05 srun(1)) as the options they stand for:
// SLURM_NTASKS (SLURM_NPROCS), SLURM_NNODES, SLURM_NTASKS_PER_NODE, SLURM_STDOUTMODE,
// SLURM_STDERRMODE, SLURM_STDINMODE, SLURM_OVERCOMMIT, SLURM_DEBUG (-v that many times), SLURM_LABELIO,
// SLURM_UNBUFFEREDIO, SLURM_KILL_BAD_EXIT, SLURM_EXACT, SLURM_EXCLUSIVE, SLURM_OVERLAP,
// SLURM_ACCOUNT, SLURM_PARTITION, SLURM_QOS, SLURM_TIMELIMIT, SLURM_WORKING_DIR, SLURM_EXPORT_ENV,
// SRUN_CPUS_PER_TASK. A flag's variable sets it when empty, "yes" or a number other than 0, as in
// Slurm; an empty value of the others is passed on (and refused as the option would be).
std::vector<std::string> SrunEnvironmentArgs(const std::function<const char*(const char*)>& getenv);

// srun -v's block: "srun: defined options" ... "srun: end of defined options".
std::string DefinedOptionsText(const SrunOptions& opt);

// srun's options (those of Slurm 22.05's that Muster knows, and what it does with each).
OptionTable SrunOptionTable();

// Whether a resource option (an entry of resource_args) also shapes a step inside an allocation
// (-c and --exclusive: its CPUs; --mem, --mem-per-cpu: its memory; the GPU options: its GPUs);
// the others apply to a new allocation only.
bool ShapesStep(const std::string& resource_arg);

// The tasks' directory: -D/--chdir's (relative to srun's own `cwd`), else `cwd`.
std::string StepDirectory(const std::string& chdir, const std::string& cwd);

std::string SrunUsage();
std::string SrunHelp();

// "0: " for a step of up to 10 tasks, " 0: " up to 100, ...: as wide as the largest task id.
std::string TaskLabel(int procid, int ntasks);

// Splits one task's stream into lines and puts its label before each (srun -l). Bytes of an
// unfinished line wait for the rest; Finish() returns them labelled (no newline added).
class LineLabeler {
 public:
  LineLabeler() = default;
  explicit LineLabeler(std::string label) : label_(std::move(label)) {}
  std::string Add(const std::string& bytes);
  std::string Finish();

 private:
  std::string label_;
  std::string partial_;
};

// "node2: task 1: Exited with exit code 3", "node1: task 0: Killed", "... Segmentation fault
// (core dumped)"; "" for a task that exited 0.
std::string TaskExitMessage(const std::string& node, int procid, int exit_code, int signal, bool core_dumped);
// What srun exits with for a task: its exit code, or 128 + the signal that killed it.
int TaskExitStatus(int exit_code, int signal);

// Task ids as Slurm groups them: "task 3", "tasks 0-2,5".
std::string TaskRanges(const std::vector<int>& procids);

}  // namespace muster
