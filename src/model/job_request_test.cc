#include "model/job_request.h"

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "model/limits.h"

namespace muster {

// Readable failures: gtest would print the struct as bytes.
void PrintTo(const JobRequest& r, std::ostream* os) {
  *os << "{name=" << r.name << " partition=" << r.partition << " N=" << r.min_nodes << "-" << r.max_nodes
      << " n=" << r.ntasks << " ntpn=" << r.ntasks_per_node << " c=" << r.cpus_per_task
      << " mem=" << r.mem_per_node_mb << "/" << r.mem_per_cpu_mb << "/" << r.mem_per_gpu_mb
      << " gpu_type=" << r.gpu_type << " gpn=" << r.gpus_per_node << " G=" << r.gpus_total
      << " gpt=" << r.gpus_per_task << " cpg=" << r.cpus_per_gpu << " milli=" << r.gpu_milli
      << " gmem=" << r.gpu_memory_mb << " C=" << r.constraint << " excl=" << r.exclusive
      << " t=" << r.time_limit_s << " w=" << r.nodelist.size() << " x=" << r.exclude.size() << "}";
}

namespace {

using Args = std::vector<std::string>;

std::string Show(const Args& args) {
  std::string s;
  for (const std::string& a : args) s += (s.empty() ? "" : " ") + a;
  return "[" + s + "]";
}

struct OkCase {
  Args args;
  std::function<void(JobRequest&)> expect;  // applied to a default JobRequest
};

TEST(ParseJobRequestTest, AcceptsEveryOptionInEveryShape) {
  const std::vector<OkCase> cases = {
      {{}, [](JobRequest&) {}},
      // -J / --job-name
      {{"-J", "train"}, [](JobRequest& r) { r.name = "train"; }},
      {{"-Jtrain"}, [](JobRequest& r) { r.name = "train"; }},
      {{"--job-name=train"}, [](JobRequest& r) { r.name = "train"; }},
      {{"--job-name", "a b=c"}, [](JobRequest& r) { r.name = "a b=c"; }},
      {{"--job-name=x=y"}, [](JobRequest& r) { r.name = "x=y"; }},
      // -p / --partition
      {{"-p", "gpu"}, [](JobRequest& r) { r.partition = "gpu"; }},
      {{"-pgpu"}, [](JobRequest& r) { r.partition = "gpu"; }},
      {{"--partition=debug"}, [](JobRequest& r) { r.partition = "debug"; }},
      {{"--partition", "debug"}, [](JobRequest& r) { r.partition = "debug"; }},
      // -N / --nodes
      {{"-N2"}, [](JobRequest& r) { r.min_nodes = 2; }},
      {{"-N", "2"}, [](JobRequest& r) { r.min_nodes = 2; }},
      {{"--nodes=2-4"}, [](JobRequest& r) { r.min_nodes = 2; r.max_nodes = 4; }},
      {{"--nodes", "3-3"}, [](JobRequest& r) { r.min_nodes = 3; r.max_nodes = 3; }},
      {{"-N", "4", "-N", "1-2"}, [](JobRequest& r) { r.min_nodes = 1; r.max_nodes = 2; }},  // last wins
      // -n / --ntasks, --ntasks-per-node
      {{"-n8"}, [](JobRequest& r) { r.ntasks = 8; }},
      {{"-n", "8"}, [](JobRequest& r) { r.ntasks = 8; }},
      {{"--ntasks=8"}, [](JobRequest& r) { r.ntasks = 8; }},
      {{"--ntasks", "8"}, [](JobRequest& r) { r.ntasks = 8; }},
      {{"--ntasks-per-node=4"}, [](JobRequest& r) { r.ntasks_per_node = 4; }},
      {{"--ntasks-per-node", "4", "-N", "2", "-n", "8"},
       [](JobRequest& r) { r.ntasks_per_node = 4; r.min_nodes = 2; r.ntasks = 8; }},
      {{"-n", "100", "-N1"}, [](JobRequest& r) { r.ntasks = 100; r.min_nodes = 1; }},  // captured: accepted
      // -c / --cpus-per-task
      {{"-c4"}, [](JobRequest& r) { r.cpus_per_task = 4; }},
      {{"-c", "4"}, [](JobRequest& r) { r.cpus_per_task = 4; }},
      {{"--cpus-per-task=16"}, [](JobRequest& r) { r.cpus_per_task = 16; }},
      {{"--cpus-per-task", "007"}, [](JobRequest& r) { r.cpus_per_task = 7; }},
      // memory
      {{"--mem=16G"}, [](JobRequest& r) { r.mem_per_node_mb = 16384; }},
      {{"--mem", "500"}, [](JobRequest& r) { r.mem_per_node_mb = 500; }},
      {{"--mem=1T"}, [](JobRequest& r) { r.mem_per_node_mb = 1048576; }},
      {{"--mem=1025k"}, [](JobRequest& r) { r.mem_per_node_mb = 2; }},
      {{"--mem-per-cpu=2G"}, [](JobRequest& r) { r.mem_per_cpu_mb = 2048; }},
      {{"--mem-per-cpu", "100M"}, [](JobRequest& r) { r.mem_per_cpu_mb = 100; }},
      {{"--mem-per-gpu=80G"}, [](JobRequest& r) { r.mem_per_gpu_mb = 81920; }},
      {{"--mem=1G", "--mem=2G"}, [](JobRequest& r) { r.mem_per_node_mb = 2048; }},
      // --gres
      {{"--gres=gpu:4"}, [](JobRequest& r) { r.gpus_per_node = 4; }},
      {{"--gres", "gpu:4"}, [](JobRequest& r) { r.gpus_per_node = 4; }},
      {{"--gres=gpu"}, [](JobRequest& r) { r.gpus_per_node = 1; }},
      {{"--gres=gpu:a100"}, [](JobRequest& r) { r.gpus_per_node = 1; r.gpu_type = "a100"; }},
      {{"--gres=gpu:a100:2"}, [](JobRequest& r) { r.gpus_per_node = 2; r.gpu_type = "a100"; }},
      {{"--gres=gpu:1g.18gb:1"}, [](JobRequest& r) { r.gpus_per_node = 1; r.gpu_type = "1g.18gb"; }},
      {{"--gres=gpu:h100-80gb:8"}, [](JobRequest& r) { r.gpus_per_node = 8; r.gpu_type = "h100-80gb"; }},
      {{"--gres=gpu:0"}, [](JobRequest&) {}},                 // no GPUs, as in Slurm
      {{"--gres=gpu:a100:0"}, [](JobRequest&) {}},            // and no type either
      {{"--gres=gpu:4", "--gres=none"}, [](JobRequest&) {}},  // none clears
      {{"--gres=NONE"}, [](JobRequest&) {}},
      {{"--gres=gpu:2", "--gres=gpu:v100:1"}, [](JobRequest& r) { r.gpus_per_node = 1; r.gpu_type = "v100"; }},
      // --gpus / -G
      {{"--gpus=16"}, [](JobRequest& r) { r.gpus_total = 16; }},
      {{"-G", "a100:8"}, [](JobRequest& r) { r.gpus_total = 8; r.gpu_type = "a100"; }},
      {{"-G2"}, [](JobRequest& r) { r.gpus_total = 2; }},
      {{"--gpus", "0"}, [](JobRequest&) {}},
      // --gpus-per-node, --gpus-per-task, --cpus-per-gpu
      {{"--gpus-per-node=4"}, [](JobRequest& r) { r.gpus_per_node = 4; }},
      {{"--gpus-per-node", "h100:8"}, [](JobRequest& r) { r.gpus_per_node = 8; r.gpu_type = "h100"; }},
      {{"--gpus-per-task=1", "-n", "8"}, [](JobRequest& r) { r.gpus_per_task = 1; r.ntasks = 8; }},
      {{"--gpus-per-task=a100:2", "--gpus=a100:8"},
       [](JobRequest& r) { r.gpus_per_task = 2; r.gpus_total = 8; r.gpu_type = "a100"; }},
      {{"--gpus-per-task=1", "--ntasks-per-node=4", "-N2"},
       [](JobRequest& r) { r.gpus_per_task = 1; r.ntasks_per_node = 4; r.min_nodes = 2; }},
      {{"--gpus-per-task=2", "--ntasks-per-node=4", "--gres=gpu:8"},
       [](JobRequest& r) { r.gpus_per_task = 2; r.ntasks_per_node = 4; r.gpus_per_node = 8; }},
      {{"--cpus-per-gpu=8", "--gpus=2"}, [](JobRequest& r) { r.cpus_per_gpu = 8; r.gpus_total = 2; }},
      {{"--cpus-per-gpu", "8"}, [](JobRequest& r) { r.cpus_per_gpu = 8; }},
      {{"--gres=gpu:a100:2", "--gpus=a100:4"},  // same type from two options
       [](JobRequest& r) { r.gpus_per_node = 2; r.gpus_total = 4; r.gpu_type = "a100"; }},
      {{"--gres=gpu:2", "--gpus=a100:4"},  // untyped + typed
       [](JobRequest& r) { r.gpus_per_node = 2; r.gpus_total = 4; r.gpu_type = "a100"; }},
      // -C / --constraint, --exclusive
      {{"-C", "a100&ib"}, [](JobRequest& r) { r.constraint = "a100&ib"; }},
      {{"-Ca100|h100"}, [](JobRequest& r) { r.constraint = "a100|h100"; }},
      {{"--constraint=nvlink"}, [](JobRequest& r) { r.constraint = "nvlink"; }},
      {{"--exclusive"}, [](JobRequest& r) { r.exclusive = true; }},
      {{"--exclusive="}, [](JobRequest& r) { r.exclusive = true; }},
      {{"-O"}, [](JobRequest& r) { r.overcommit = true; }},
      {{"--overcommit"}, [](JobRequest& r) { r.overcommit = true; }},
      // -t / --time: rounded up to whole minutes; 0 means no limit (Slurm)
      {{"-t", "60"}, [](JobRequest& r) { r.time_limit_s = 3600; }},
      {{"-t60"}, [](JobRequest& r) { r.time_limit_s = 3600; }},
      {{"--time=1-00:00:00"}, [](JobRequest& r) { r.time_limit_s = 86400; }},
      {{"--time", "2:30:00"}, [](JobRequest& r) { r.time_limit_s = 9000; }},
      {{"--time=1:30"}, [](JobRequest& r) { r.time_limit_s = 120; }},
      {{"--time=0"}, [](JobRequest& r) { r.time_limit_s = kUnlimited; }},
      {{"--time=UNLIMITED"}, [](JobRequest& r) { r.time_limit_s = kUnlimited; }},
      {{"--time=infinite"}, [](JobRequest& r) { r.time_limit_s = kUnlimited; }},
      {{"-t", "-1"}, [](JobRequest& r) { r.time_limit_s = kUnlimited; }},
      // -w / --nodelist, -x / --exclude (expanded, duplicates dropped)
      {{"-w", "n[1-3]"}, [](JobRequest& r) { r.nodelist = {"n1", "n2", "n3"}; }},
      {{"-wn1"}, [](JobRequest& r) { r.nodelist = {"n1"}; }},
      {{"--nodelist=gpu[001-002],login1"}, [](JobRequest& r) { r.nodelist = {"gpu001", "gpu002", "login1"}; }},
      {{"--nodelist", "n1,n1,n2"}, [](JobRequest& r) { r.nodelist = {"n1", "n2"}; }},
      {{"-x", "n4"}, [](JobRequest& r) { r.exclude = {"n4"}; }},
      {{"--exclude=n[3-4]"}, [](JobRequest& r) { r.exclude = {"n3", "n4"}; }},
      {{"-w", "n[1-2]", "-N", "2"}, [](JobRequest& r) { r.nodelist = {"n1", "n2"}; r.min_nodes = 2; }},
      {{"-w", "n1", "-x", "n2"}, [](JobRequest& r) { r.nodelist = {"n1"}; r.exclude = {"n2"}; }},
      // Fractional GPUs (Muster)
      {{"--gpu-fraction=0.25"}, [](JobRequest& r) { r.gpu_milli = 250; }},
      {{"--gpu-fraction", ".5"}, [](JobRequest& r) { r.gpu_milli = 500; }},
      {{"--gpu-fraction=0.3333"}, [](JobRequest& r) { r.gpu_milli = 333; }},
      {{"--gpu-fraction=0.001"}, [](JobRequest& r) { r.gpu_milli = 1; }},
      {{"--gpu-fraction=0.999"}, [](JobRequest& r) { r.gpu_milli = 999; }},
      {{"--gpu-memory=20G"}, [](JobRequest& r) { r.gpu_memory_mb = 20480; }},
      {{"--gpu-memory", "512"}, [](JobRequest& r) { r.gpu_memory_mb = 512; }},
      {{"--gpu-fraction=0.5", "--gres=gpu:0"}, [](JobRequest& r) { r.gpu_milli = 500; }},
      {{"--gpu-fraction=0.5", "--mem-per-gpu=10G"}, [](JobRequest& r) { r.gpu_milli = 500; r.mem_per_gpu_mb = 10240; }},
      // getopt_long: unambiguous prefixes, "--" ends the options, values that look like options
      {{"--part=gpu"}, [](JobRequest& r) { r.partition = "gpu"; }},
      {{"--ntasks-per=2"}, [](JobRequest& r) { r.ntasks_per_node = 2; }},
      {{"--exclus"}, [](JobRequest& r) { r.exclusive = true; }},
      {{"-N", "1", "--"}, [](JobRequest& r) { r.min_nodes = 1; }},
      {{"-J", "-N"}, [](JobRequest& r) { r.name = "-N"; }},
      // Everything at once.
      {{"-J", "llm", "-p", "gpu", "-N", "2-4", "-n", "16", "--ntasks-per-node=8", "-c", "8", "--mem=400G",
        "--gres=gpu:h100:8", "-C", "ib", "--exclusive", "-t", "2-00:00:00", "-x", "n9"},
       [](JobRequest& r) {
         r.name = "llm"; r.partition = "gpu"; r.min_nodes = 2; r.max_nodes = 4; r.ntasks = 16;
         r.ntasks_per_node = 8; r.cpus_per_task = 8; r.mem_per_node_mb = 400 * 1024; r.gpus_per_node = 8;
         r.gpu_type = "h100"; r.constraint = "ib"; r.exclusive = true; r.time_limit_s = 2 * 86400;
         r.exclude = {"n9"};
       }},
  };
  for (const OkCase& c : cases) {
    SCOPED_TRACE(Show(c.args));
    StatusOr<JobRequest> got = ParseJobRequest(c.args);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    JobRequest want;
    c.expect(want);
    EXPECT_EQ(*got, want);
  }
}

struct ErrCase {
  Args args;
  std::string substring;  // expected in the error message
};

TEST(ParseJobRequestTest, RejectsBadInputWithClearMessages) {
  const std::vector<ErrCase> cases = {
      // Option syntax (getopt's wording, as sbatch prints it).
      {{"--bogus"}, "unrecognized option '--bogus'"},
      {{"--bogus=3"}, "unrecognized option '--bogus=3'"},
      {{"-z"}, "invalid option -- 'z'"},
      {{"--time"}, "option '--time' requires an argument"},
      {{"--ti"}, "option '--time' requires an argument"},
      {{"-t"}, "option requires an argument -- 't'"},
      {{"--gpu=1"}, "option '--gpu=1' is ambiguous; possibilities: '--gpus' '--gpus-per-node'"},
      {{"--excl"}, "option '--excl' is ambiguous; possibilities: '--exclusive' '--exclude'"},
      {{"job.sh"}, "unexpected argument 'job.sh'"},
      {{"-"}, "unexpected argument '-'"},
      {{"--", "-N2"}, "unexpected argument '-N2'"},
      {{"--exclusive=user"}, "--exclusive: 'user' is not supported"},
      // Counts.
      {{"-N", "0"}, "--nodes: invalid numeric value '0'"},
      {{"-N", "x"}, "--nodes: invalid numeric value 'x'"},
      {{"-N", "-3"}, "--nodes: invalid numeric value ''"},
      {{"-N", "2-"}, "--nodes: invalid numeric value ''"},
      {{"-N", "1-2-3"}, "--nodes: invalid numeric value '2-3'"},
      {{"-N", "4-2"}, "--nodes: Maximum node count 2 is less than minimum node count 4"},
      {{"-N", "99999999999"}, "--nodes: numeric value '99999999999' is too large"},
      {{"-n", "0"}, "--ntasks: invalid numeric value '0' (expected a positive integer)"},
      {{"-n", "-2"}, "--ntasks: invalid numeric value '-2'"},
      {{"-n", "+2"}, "--ntasks: invalid numeric value '+2'"},
      {{"-n", " 2"}, "--ntasks: invalid numeric value ' 2'"},
      {{"-n", "2.5"}, "--ntasks: invalid numeric value '2.5'"},
      {{"-n", ""}, "--ntasks: invalid numeric value ''"},
      {{"--ntasks-per-node=0"}, "--ntasks-per-node: invalid numeric value '0'"},
      {{"-c", "0"}, "--cpus-per-task: invalid numeric value '0'"},
      {{"-c", "four"}, "--cpus-per-task: invalid numeric value 'four'"},
      {{"--cpus-per-gpu=0"}, "--cpus-per-gpu: invalid numeric value '0'"},
      // Memory.
      {{"--mem=abc"}, "--mem: invalid memory size 'abc'"},
      {{"--mem=-5"}, "--mem: negative memory size '-5'"},
      {{"--mem="}, "--mem: empty memory size"},
      {{"--mem=0"}, "--mem: 0 (all of a node's memory) is not supported"},
      {{"--mem=99999999999999T"}, "--mem: memory size '99999999999999T' is too large"},
      {{"--mem-per-cpu=0"}, "--mem-per-cpu: memory size '0' must be positive"},
      {{"--mem-per-gpu=1X"}, "--mem-per-gpu: invalid memory size '1X'"},
      {{"--mem=1G", "--mem-per-cpu=1G"}, "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive"},
      {{"--mem-per-gpu=1G", "--mem=1G"}, "mutually exclusive"},
      {{"--mem-per-cpu=1G", "--mem-per-gpu=1G"}, "mutually exclusive"},
      // GRES and GPUs.
      {{"--gres=tpu:1"}, "--gres: Invalid generic resource (gres) specification 'tpu:1': unknown gres 'tpu'"},
      {{"--gres=gpu:2,tpu:1"}, "Invalid generic resource (gres) specification"},
      {{"--gres=gpu:a100:2,gpu:v100:1"}, "more than one gpu entry"},
      {{"--gres="}, "Invalid generic resource (gres) specification '': empty entry"},
      {{"--gres=gpu,"}, "empty entry"},
      {{"--gres=gpu:"}, "bad GPU type ''"},
      {{"--gres=gpu:a100:"}, "invalid numeric value ''"},
      {{"--gres=gpu:a100:x"}, "invalid numeric value 'x'"},
      {{"--gres=gpu:a:1:2"}, "too many ':'"},
      {{"--gres=gpu:-1"}, "bad GPU type '-1'"},
      {{"--gres=gpu:a/b:1"}, "bad GPU type 'a/b'"},
      {{"--gres=GPU:1"}, "unknown gres 'GPU'"},
      {{"--gpus=a100"}, "--gpus: invalid numeric value 'a100' (expected [type:]N"},
      {{"--gpus=:4"}, "--gpus: invalid GPU type ''"},
      {{"--gpus=a100:2,v100:2"}, "--gpus: invalid numeric value '2,v100:2'"},
      {{"-G", "-1"}, "--gpus: invalid numeric value '-1'"},
      {{"--gpus-per-node=x:y"}, "--gpus-per-node: invalid numeric value 'y'"},
      {{"--gpus-per-task=1.5", "-n2"}, "--gpus-per-task: invalid numeric value '1.5'"},
      {{"--gres=gpu:a100:2", "--gpus=v100:4"}, "conflicting GPU types 'a100' (--gres=gpu) and 'v100' (--gpus)"},
      {{"--gpus-per-node=h100:1", "--gpus-per-task=a100:1", "-n1"}, "conflicting GPU types"},
      {{"--gres=gpu:2", "--gpus-per-node=2"}, "--gres=gpu and --gpus-per-node both give the GPUs per node"},
      {{"--gpus-per-task=1"}, "--gpus-per-task used without either --gpus or -n/--ntasks is not allowed"},
      {{"--gpus-per-task=1", "--gpus-per-node=2", "--ntasks-per-node=1"},
       "--gpus-per-task=1 times --ntasks-per-node=1 differs from the 2 GPUs per node"},
      {{"--cpus-per-task=2", "--cpus-per-gpu=1"}, "--cpus-per-task and --cpus-per-gpu are mutually exclusive"},
      // Fractional GPUs.
      {{"--gpu-fraction=0"}, "--gpu-fraction: invalid GPU fraction '0'"},
      {{"--gpu-fraction=1"}, "invalid GPU fraction '1'"},
      {{"--gpu-fraction=1.0"}, "invalid GPU fraction '1.0'"},
      {{"--gpu-fraction=-0.5"}, "invalid GPU fraction '-0.5'"},
      {{"--gpu-fraction=abc"}, "invalid GPU fraction 'abc'"},
      {{"--gpu-fraction=."}, "invalid GPU fraction '.'"},
      {{"--gpu-fraction=0.5.1"}, "invalid GPU fraction '0.5.1'"},
      {{"--gpu-fraction=1e-1"}, "invalid GPU fraction '1e-1'"},
      {{"--gpu-fraction=nan"}, "invalid GPU fraction 'nan'"},
      {{"--gpu-fraction="}, "invalid GPU fraction ''"},
      {{"--gpu-fraction=0.0004"}, "--gpu-fraction: GPU fraction '0.0004' rounds to 0/1000 of a GPU"},
      {{"--gpu-fraction=0.9996"}, "rounds to 1000/1000"},
      {{"--gpu-memory=0"}, "--gpu-memory: memory size '0' must be positive"},
      {{"--gpu-memory=lots"}, "--gpu-memory: invalid memory size 'lots'"},
      {{"--gpu-fraction=0.5", "--gpu-memory=10G"}, "--gpu-fraction and --gpu-memory are mutually exclusive"},
      {{"--gpu-fraction=0.5", "--gres=gpu:1"}, "--gpu-fraction (one shared GPU) cannot be combined with whole GPUs"},
      {{"--gpu-memory=10G", "--gpus=2"}, "--gpu-memory (one shared GPU) cannot be combined"},
      {{"--gpu-fraction=0.5", "--gpus-per-node=1"}, "cannot be combined with whole GPUs"},
      {{"--gpu-fraction=0.5", "--gpus-per-task=1", "-n1"}, "cannot be combined with whole GPUs"},
      // Time.
      {{"--time=abc"},
       "--time: invalid time specification 'abc' (expected minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS)"},
      {{"--time=-5"}, "--time: invalid time specification '-5'"},
      {{"-t", "1:2:3:4"}, "invalid time specification '1:2:3:4'"},
      {{"-t", "99999999999"}, "--time: time specification '99999999999' is too large"},
      // Tasks and nodes.
      {{"-n", "2", "-N", "4"}, "-n 2 tasks cannot run on 4 nodes"},
      {{"-n", "10", "-N", "2", "--ntasks-per-node=4"}, "-n 10 tasks do not fit on 2 nodes at --ntasks-per-node=4"},
      {{"-n", "10", "-N", "1-2", "--ntasks-per-node=4"}, "do not fit on 2 nodes"},
      // Node lists.
      {{"-w", "n[1-3"}, "--nodelist: "},
      {{"-x", "n[1-3"}, "--exclude: "},
      {{"-w", "n[1-3]", "-N", "2"}, "--nodelist names 3 nodes but --nodes allows at most 2"},
      {{"-w", "n[1-3]", "-x", "n2"}, "required and excluded node lists overlap: 'n2'"},
      // Long input is shortened in messages.
      {{"--time=" + std::string(200, 'x')}, "invalid time specification '" + std::string(80, 'x') + "...' (expected"},
      // Errors come in argv order.
      {{"-n", "x", "--bogus"}, "--ntasks: invalid numeric value 'x'"},
  };
  for (const ErrCase& c : cases) {
    SCOPED_TRACE(Show(c.args));
    StatusOr<JobRequest> got = ParseJobRequest(c.args);
    ASSERT_FALSE(got.ok()) << "expected an error containing \"" << c.substring << "\"";
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(got.status().message().find(c.substring), std::string::npos)
        << "message: " << got.status().message() << "\nwanted: " << c.substring;
  }
}

// Random argument vectors (fixed seed): the parser must return, OK or with a message, and never
// crash, hang or trip a CHECK.
TEST(ParseJobRequestTest, RandomArgumentVectorsNeverCrash) {
  const std::vector<std::string> names = {
      "-J", "-p", "-N", "-n", "-c", "-C", "-t", "-w", "-x", "-G", "-z", "-", "--", "---",
      "--job-name", "--partition", "--nodes", "--ntasks", "--ntasks-per-node", "--cpus-per-task", "--mem",
      "--mem-per-cpu", "--mem-per-gpu", "--gres", "--gpus", "--gpus-per-node", "--gpus-per-task",
      "--cpus-per-gpu", "--constraint", "--exclusive", "--time", "--nodelist", "--exclude", "--gpu-fraction",
      "--gpu-memory", "--gpu", "--mem-", "--bogus", "--n", "--="};
  const std::vector<std::string> values = {
      "", "0", "1", "2", "-1", "-5", "4-2", "2-4", "007", "2147483647", "2147483648", "99999999999999999999",
      "gpu", "gpu:4", "gpu:a100:2", "gpu:1g.18gb:1", "gpu:0", "tpu:1", "none", "gpu:", ":", "::", ",", "gpu,gpu",
      "a100:8", "a100", ":4", "0.5", ".5", "0.0004", "1e9", "nan", "inf", "-0.5", "16G", "1025k", "1T", "9999999T",
      "UNLIMITED", "1-00:00:00", "1:30", "5-", "-", "1::2", "n[1-3]", "n[1-3", "n[3-1]", "n1,n1", "[", "]",
      "a&b|c", "=", "==", "\xff\xfe", std::string("a\0b", 3), std::string(300, '9'), std::string(1000, '[')};
  std::mt19937 rng(20240611);
  auto pick = [&rng](const std::vector<std::string>& v) {
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
  };
  auto junk = [&rng]() {
    std::string s(std::uniform_int_distribution<int>(0, 12)(rng), ' ');
    for (char& ch : s) ch = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
    return s;
  };
  int ok = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    Args args;
    const int n = std::uniform_int_distribution<int>(0, 8)(rng);
    for (int k = 0; k < n; ++k) {
      // Mostly well-formed shapes, so that runs get past the first option into the checks.
      const int shape = std::uniform_int_distribution<int>(0, 19)(rng);
      const std::string name = pick(names);
      const std::string value = std::uniform_int_distribution<int>(0, 9)(rng) == 0 ? junk() : pick(values);
      if (shape < 3) {
        args.push_back(name);
      } else if (shape < 9) {
        args.push_back(name);
        args.push_back(value);
      } else if (shape < 15) {
        args.push_back(name + "=" + value);
      } else if (shape < 18) {
        args.push_back(name + value);
      } else if (shape < 19) {
        args.push_back(value);
      } else {
        args.push_back(junk());
      }
    }
    StatusOr<JobRequest> got = ParseJobRequest(args);
    if (got.ok()) {
      ok += args.size() >= 2 ? 1 : 0;
      // What the parser takes, the controller's check of a typed request takes too.
      EXPECT_TRUE(ValidateJobRequest(*got).ok()) << Show(args) << ": " << ValidateJobRequest(*got).message();
    } else {
      EXPECT_FALSE(got.status().message().empty()) << Show(args);
    }
  }
  // Not a claim about behaviour: only that the generator also reaches the accepting paths.
  EXPECT_GT(ok, 200);
}

// A typed request (from the wire, not from the parser) is checked as the parser checks options.
TEST(ValidateJobRequestTest, RefusesWhatTheParserWouldNotMake) {
  EXPECT_TRUE(ValidateJobRequest(JobRequest{}).ok());
  EXPECT_TRUE(ValidateJobRequest(*ParseJobRequest({"-N", "2-4", "-n", "8", "--gres=gpu:a100:4", "-t", "1:00"})).ok());
  const struct {
    std::function<void(JobRequest&)> change;
    std::string message;
  } cases[] = {
      {[](JobRequest& r) { r.ntasks = -1; }, "invalid resources: ntasks -1"},
      {[](JobRequest& r) { r.cpus_per_task = 0; }, "invalid resources: cpus_per_task 0"},
      {[](JobRequest& r) { r.min_nodes = 4, r.max_nodes = 2; }, "invalid resources: node count 4-2"},
      {[](JobRequest& r) { r.gpus_per_node = -3; }, "invalid resources: gpus_per_node -3"},
      {[](JobRequest& r) { r.gpu_milli = 1000; }, "invalid resources: gpu_milli 1000 (at most 999)"},
      {[](JobRequest& r) { r.gpu_type = "a b"; }, "invalid resources: GPU type 'a b'"},
      {[](JobRequest& r) { r.time_limit_s = kMaxJobTimeLimitS + 1; },
       "invalid resources: time limit " + std::to_string(kMaxJobTimeLimitS + 1) + " s"},
      {[](JobRequest& r) { r.mem_per_node_mb = 1, r.mem_per_cpu_mb = 1; },
       "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive"},
      {[](JobRequest& r) { r.gpu_milli = 500, r.gpus_total = 1; },
       "--gpu-fraction (one shared GPU) cannot be combined with whole GPUs "
       "(--gres=gpu, --gpus, --gpus-per-node, --gpus-per-task)"},
      {[](JobRequest& r) { r.nodelist = {"n1"}, r.exclude = {"n1"}; },
       "required and excluded node lists overlap: 'n1' is in both -w and -x"},
  };
  for (const auto& c : cases) {
    JobRequest r;
    c.change(r);
    EXPECT_EQ(ValidateJobRequest(r).message(), c.message);
  }
}

}  // namespace
}  // namespace muster
