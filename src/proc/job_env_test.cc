#include "proc/job_env.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace muster {
namespace {

using EnvMap = std::map<std::string, std::string>;

EnvMap ToMap(const std::vector<std::string>& env) {
  EnvMap m;
  for (const std::string& kv : env) {
    size_t eq = kv.find('=');
    EXPECT_NE(eq, std::string::npos) << kv;
    EXPECT_EQ(m.count(kv.substr(0, eq)), 0u) << "duplicate " << kv;
    m[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return m;
}

// The SLURM_*/CUDA_* lines of a capture from the peer Slurm (shared/peers/slurm/captures).
EnvMap ParseCapture(const std::string& text) {
  EnvMap m;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("SLURM", 0) != 0 && line.rfind("CUDA", 0) != 0) continue;
    size_t eq = line.find('=');
    m[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return m;
}

// Compares the Slurm and CUDA variables of `got` with a capture, except the masked ones.
void ExpectMatchesCapture(const EnvMap& got, const EnvMap& capture, const std::set<std::string>& masked) {
  for (const auto& [key, value] : capture) {
    if (masked.count(key)) continue;
    auto it = got.find(key);
    if (it == got.end()) {
      ADD_FAILURE() << "missing " << key << "=" << value;
    } else {
      EXPECT_EQ(it->second, value) << key;
    }
  }
  for (const auto& [key, value] : got) {
    bool ours = key.rfind("SLURM", 0) == 0 || key.rfind("CUDA", 0) == 0;
    if (ours && !capture.count(key) && !masked.count(key)) ADD_FAILURE() << "extra " << key << "=" << value;
  }
}

// `sbatch -J gpujob -w n1 --gres=gpu:8 -n4 -t 10` on the peer Slurm: batch_env.txt.
constexpr char kBatchCapture[] = R"(
SLURMD_NODENAME=n1
SLURM_CLUSTER_NAME=peer
SLURM_CONF=$PEER/etc/slurm.conf
SLURM_CPUS_ON_NODE=4
SLURM_GPUS_ON_NODE=8
SLURM_GTIDS=0
SLURM_JOBID=9148
SLURM_JOB_ACCOUNT=root
SLURM_JOB_CPUS_PER_NODE=4
SLURM_JOB_GID=0
SLURM_JOB_GPUS=0,1,2,3,4,5,6,7
SLURM_JOB_ID=9148
SLURM_JOB_NAME=gpujob
SLURM_JOB_NODELIST=n1
SLURM_JOB_NUM_NODES=1
SLURM_JOB_PARTITION=gpu
SLURM_JOB_QOS=normal
SLURM_JOB_UID=0
SLURM_JOB_USER=root
SLURM_LOCALID=0
SLURM_MEM_PER_CPU=500
SLURM_NNODES=1
SLURM_NODEID=0
SLURM_NODELIST=n1
SLURM_NODE_ALIASES=(null)
SLURM_NPROCS=4
SLURM_NTASKS=4
SLURM_PRIO_PROCESS=0
SLURM_PROCID=0
SLURM_SUBMIT_DIR=$PEER/results/20261130-025118/work
SLURM_SUBMIT_HOST=vm
SLURM_TASKS_PER_NODE=4
SLURM_TASK_PID=29817
SLURM_TOPOLOGY_ADDR=n1
SLURM_TOPOLOGY_ADDR_PATTERN=node
SLURM_WORKING_CLUSTER=peer:127.0.0.1:16817:9728:109
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7
)";

// `srun -N1 -n1 --gres=gpu:2 bash -c 'env ...'` on the peer Slurm: srun_env.txt.
constexpr char kSrunCapture[] = R"(
CUDA_HOME=/usr/local/cuda
CUDA_VISIBLE_DEVICES=0,1
SLURMD_NODENAME=n1
SLURM_CLUSTER_NAME=peer
SLURM_CONF=$PEER/etc/slurm.conf
SLURM_CPUS_ON_NODE=1
SLURM_GPUS_ON_NODE=2
SLURM_GTIDS=0
SLURM_JOBID=9160
SLURM_JOB_ACCOUNT=root
SLURM_JOB_CPUS_PER_NODE=1
SLURM_JOB_GID=0
SLURM_JOB_ID=9160
SLURM_JOB_NAME=bash
SLURM_JOB_NODELIST=n1
SLURM_JOB_NUM_NODES=1
SLURM_JOB_PARTITION=gpu
SLURM_JOB_QOS=normal
SLURM_JOB_UID=0
SLURM_JOB_USER=root
SLURM_LAUNCH_NODE_IPADDR=127.0.0.1
SLURM_LOCALID=0
SLURM_NNODES=1
SLURM_NODEID=0
SLURM_NODELIST=n1
SLURM_NPROCS=1
SLURM_NTASKS=1
SLURM_PRIO_PROCESS=0
SLURM_PROCID=0
SLURM_SRUN_COMM_HOST=127.0.0.1
SLURM_SRUN_COMM_PORT=35421
SLURM_STEPID=0
SLURM_STEP_GPUS=0,1
SLURM_STEP_ID=0
SLURM_STEP_LAUNCHER_PORT=35421
SLURM_STEP_NODELIST=n1
SLURM_STEP_NUM_NODES=1
SLURM_STEP_NUM_TASKS=1
SLURM_STEP_TASKS_PER_NODE=1
SLURM_SUBMIT_DIR=$PEER/results/20261130-025118/work
SLURM_SUBMIT_HOST=vm
SLURM_TASKS_PER_NODE=1
SLURM_TASK_PID=30012
SLURM_TOPOLOGY_ADDR=n1
SLURM_TOPOLOGY_ADDR_PATTERN=node
SLURM_UMASK=0022
SLURM_WORKING_CLUSTER=peer:127.0.0.1:16817:9728:109
)";

// Not this function's to set: the config path (Muster has no slurm.conf), the deprecated alias
// list, the task's pid (the launcher writes it in after fork), the controller address, srun's
// umask (the launching command sets it), CUDA_HOME (the user's). srun's address and port are the
// placement's (srun_host, srun_port): the batch script has none.
const std::set<std::string> kMasked = {
    "SLURM_CONF", "SLURM_NODE_ALIASES", "SLURM_TASK_PID", "SLURM_WORKING_CLUSTER", "SLURM_UMASK", "CUDA_HOME",
};

JobRecord PeerJob(int64_t id, const std::string& name) {
  JobRecord job;
  job.id = id;
  job.name = name;
  job.uid = 0;
  job.gid = 0;
  job.user = "root";
  job.group = "root";
  job.account = "root";
  job.partition = "gpu";
  job.workdir = "$PEER/results/20261130-025118/work";
  job.environment = {"PATH=/usr/bin:/bin", "HOME=/root"};
  job.batch_host = "n1";
  return job;
}

TEST(JobEnvTest, BatchScriptMatchesSlurmCapture) {
  JobRecord job = PeerJob(9148, "gpujob");
  job.request.ntasks = 4;
  job.request.gpus_per_node = 8;
  job.request.mem_per_cpu_mb = 500;  // the peer's DefMemPerCPU, which Slurm resolves into the request
  NodeAllocation a;
  a.node = "n1";
  a.cpu_milli = 4000;
  a.memory_mb = 2000;
  a.tasks = 4;
  a.gpus = FromStoredGpus({{0, 1, 2, 3, 4, 5, 6, 7}});
  job.allocation = {a};
  job.submit_host = "vm";
  EnvMap got = ToMap(BuildJobEnvironment(job, "n1", TaskPlacement{}, "peer"));
  ExpectMatchesCapture(got, ParseCapture(kBatchCapture), kMasked);
  EXPECT_EQ(got["GPU_DEVICE_ORDINAL"], "0,1,2,3,4,5,6,7");
  EXPECT_EQ(got["PATH"], "/usr/bin:/bin");
}

// A heterogeneous job of two components, as Slurm 22.05 on the peer gave them to the batch
// script of "sbatch -J hettest -n1 --gres=gpu:1 / #SBATCH hetjob / -n2 -N2 --gres=gpu:2" (its
// per-component lines, HET_GROUP and the PACK_GROUP aliases).
TEST(JobEnvTest, HetJobVariablesMatchSlurmCapture) {
  std::vector<JobRecord> parts = {PeerJob(1, "hettest"), PeerJob(2, "hettest")};
  for (JobRecord& p : parts) {
    p.qos = "";
    p.request.mem_per_cpu_mb = 500;
  }
  parts[0].request.ntasks = 1;
  parts[1].request.ntasks = 2;
  parts[1].request.min_nodes = 2;
  for (const auto& [k, node] : {std::pair{0, "n1"}, std::pair{1, "n2"}, std::pair{1, "n3"}}) {
    NodeAllocation a;
    a.node = node;
    a.cpu_milli = 1000;
    a.memory_mb = 500;
    a.tasks = 1;
    parts[k].allocation.push_back(a);
  }
  const EnvMap het = ToMap(HetJobEnvironment(parts, "peer"));
  const EnvMap want = {
      {"SLURM_HET_SIZE", "2"}, {"SLURM_PACK_SIZE", "2"},
      {"SLURM_JOB_ACCOUNT_HET_GROUP_0", "root"}, {"SLURM_JOB_ACCOUNT_HET_GROUP_1", "root"},
      {"SLURM_JOB_CPUS_PER_NODE_HET_GROUP_0", "1"}, {"SLURM_JOB_CPUS_PER_NODE_HET_GROUP_1", "1(x2)"},
      {"SLURM_JOB_ID_HET_GROUP_0", "1"}, {"SLURM_JOB_ID_HET_GROUP_1", "2"},
      {"SLURM_JOB_NAME_HET_GROUP_0", "hettest"}, {"SLURM_JOB_NAME_HET_GROUP_1", "hettest"},
      {"SLURM_JOB_NODELIST_HET_GROUP_0", "n1"}, {"SLURM_JOB_NODELIST_HET_GROUP_1", "n[2-3]"},
      {"SLURM_JOB_NUM_NODES_HET_GROUP_0", "1"}, {"SLURM_JOB_NUM_NODES_HET_GROUP_1", "2"},
      {"SLURM_JOB_PARTITION_HET_GROUP_0", "gpu"}, {"SLURM_JOB_PARTITION_HET_GROUP_1", "gpu"},
      {"SLURM_JOB_QOS_HET_GROUP_0", "normal"}, {"SLURM_JOB_QOS_HET_GROUP_1", "normal"},
      {"SLURM_MEM_PER_CPU_HET_GROUP_0", "500"}, {"SLURM_MEM_PER_CPU_HET_GROUP_1", "500"},
      {"SLURM_NPROCS_HET_GROUP_0", "1"}, {"SLURM_NPROCS_HET_GROUP_1", "2"},
      {"SLURM_NTASKS_HET_GROUP_0", "1"}, {"SLURM_NTASKS_HET_GROUP_1", "2"},
      {"SLURM_TASKS_PER_NODE_HET_GROUP_0", "1"}, {"SLURM_TASKS_PER_NODE_HET_GROUP_1", "1(x2)"},
  };
  for (const auto& [k, v] : want) {
    EXPECT_EQ(het.count(k) ? het.at(k) : "(unset)", v) << k;
    std::string pack = k;
    if (const size_t at = pack.find("HET_GROUP"); at != std::string::npos) {
      pack.replace(at, 3, "PACK");
      EXPECT_EQ(het.count(pack) ? het.at(pack) : "(unset)", v) << pack;
    }
  }
  EXPECT_EQ(het.size(), want.size() * 2 - 2);  // each per-component one twice, the sizes once each
  // sbatch -O: the script's srun overcommits its steps too (SLURM_OVERCOMMIT), as in Slurm.
  EXPECT_EQ(ToMap(BuildJobEnvironment(parts[1], "n2", TaskPlacement{}, "peer")).count("SLURM_OVERCOMMIT"), 0u);
  parts[1].request.overcommit = true;
  EXPECT_EQ(ToMap(BuildJobEnvironment(parts[1], "n2", TaskPlacement{}, "peer"))["SLURM_OVERCOMMIT"], "1");
  // The leader's script gets them, whatever its exported environment held.
  parts[0].het_environment = HetJobEnvironment(parts, "peer");
  parts[0].environment.push_back("SLURM_JOB_ID_HET_GROUP_1=99");
  EXPECT_EQ(ToMap(BuildJobEnvironment(parts[0], "n1", TaskPlacement{}, "peer"))["SLURM_JOB_ID_HET_GROUP_1"], "2");
}

TEST(JobEnvTest, SrunStepMatchesSlurmCapture) {
  JobRecord job = PeerJob(9160, "bash");
  job.request.ntasks = 1;
  job.request.gpus_per_node = 2;
  NodeAllocation a;
  a.node = "n1";
  a.cpu_milli = 1000;
  a.memory_mb = 500;
  a.tasks = 1;
  a.gpus = FromStoredGpus({{0, 1}});
  job.allocation = {a};
  TaskPlacement where;
  where.procid = 0;
  where.localid = 0;
  where.step_id = 0;
  where.step_ntasks = 1;
  where.step_nodes = {"n1"};
  where.srun_host = "127.0.0.1";  // the capture's srun listened on 127.0.0.1:35421
  where.srun_port = 35421;
  job.submit_host = "vm";
  EnvMap got = ToMap(BuildJobEnvironment(job, "n1", where, "peer"));
  ExpectMatchesCapture(got, ParseCapture(kSrunCapture), kMasked);
  // srun behind a Unix socket: its host, no port.
  where.srun_port = 0;
  got = ToMap(BuildJobEnvironment(job, "n1", where, "peer"));
  EXPECT_EQ(got["SLURM_SRUN_COMM_HOST"], "127.0.0.1");
  EXPECT_EQ(got.count("SLURM_SRUN_COMM_PORT"), 0u);
  EXPECT_EQ(got.count("SLURM_STEP_LAUNCHER_PORT"), 0u);
  // srun -c: the step's SLURM_CPUS_PER_TASK, over the job's.
  job.request.cpus_per_task = 4;
  where.cpus_per_task = 2;
  EXPECT_EQ(ToMap(BuildJobEnvironment(job, "n1", where, "peer"))["SLURM_CPUS_PER_TASK"], "2");
  EXPECT_EQ(ToMap(BuildJobEnvironment(job, "n1", TaskPlacement{}, "peer"))["SLURM_CPUS_PER_TASK"], "4")
      << "the batch script's is the job's";
}

JobRecord FourNodeJob() {
  JobRecord job = PeerJob(77, "train");
  job.request.ntasks = 7;
  job.request.cpus_per_task = 2;
  job.request.mem_per_node_mb = 16384;
  // Listed out of order: the per-node lists follow the sorted node list.
  for (const char* n : {"gpu03", "gpu01", "gpu04", "gpu02"}) {
    NodeAllocation a;
    a.node = n;
    bool last = std::string(n) == "gpu04";
    a.tasks = last ? 1 : 2;
    a.cpu_milli = last ? 2000 : 4000;
    a.memory_mb = 16384;
    a.gpus = FromStoredGpus({{0, 1}});
    job.allocation.push_back(a);
  }
  return job;
}

TEST(JobEnvTest, MultiNodeListsAreCompressedInNodeOrder) {
  JobRecord job = FourNodeJob();
  job.submit_host = "login1";
  EnvMap got = ToMap(BuildJobEnvironment(job, "gpu01", TaskPlacement{}, "c"));
  EXPECT_EQ(got["SLURM_JOB_NODELIST"], "gpu[01-04]");
  EXPECT_EQ(got["SLURM_NODELIST"], "gpu[01-04]");
  EXPECT_EQ(got["SLURM_JOB_NUM_NODES"], "4");
  EXPECT_EQ(got["SLURM_TASKS_PER_NODE"], "2(x3),1");
  EXPECT_EQ(got["SLURM_JOB_CPUS_PER_NODE"], "4(x3),2");
  EXPECT_EQ(got["SLURM_NTASKS"], "7");
  EXPECT_EQ(got["SLURM_CPUS_PER_TASK"], "2");
  EXPECT_EQ(got["SLURM_MEM_PER_NODE"], "16384");
  EXPECT_EQ(got.count("SLURM_MEM_PER_CPU"), 0u);
  EXPECT_EQ(got["SLURM_NODEID"], "0");
  EXPECT_EQ(got["SLURM_JOB_GPUS"], "0,1");
}

TEST(JobEnvTest, StepTasksAreSpreadInBlocks) {
  JobRecord job = FourNodeJob();
  TaskPlacement where;
  where.node_index = 1;
  where.step_id = 3;
  where.procid = 4;
  where.localid = 1;
  where.step_ntasks = 5;
  where.step_nodes = {"gpu02", "gpu01"};
  job.submit_host = "login1";
  EnvMap got = ToMap(BuildJobEnvironment(job, "gpu02", where, "c"));
  EXPECT_EQ(got["SLURM_STEP_NODELIST"], "gpu[01-02]");
  EXPECT_EQ(got["SLURM_NODELIST"], "gpu[01-02]");
  EXPECT_EQ(got["SLURM_JOB_NODELIST"], "gpu[01-04]");
  EXPECT_EQ(got["SLURM_STEP_TASKS_PER_NODE"], "3,2");
  EXPECT_EQ(got["SLURM_TASKS_PER_NODE"], "3,2");
  EXPECT_EQ(got["SLURM_STEP_NUM_TASKS"], "5");
  EXPECT_EQ(got["SLURM_NTASKS"], "5");
  EXPECT_EQ(got["SLURM_NNODES"], "2");
  EXPECT_EQ(got["SLURM_NODEID"], "1");
  EXPECT_EQ(got["SLURM_GTIDS"], "3,4");
  EXPECT_EQ(got["SLURM_PROCID"], "4");
  EXPECT_EQ(got["SLURM_LOCALID"], "1");
  EXPECT_EQ(got["SLURM_STEP_ID"], "3");
  EXPECT_EQ(got["SLURM_STEP_GPUS"], "0,1");
  EXPECT_EQ(got.count("SLURM_JOB_GPUS"), 0u);
  EXPECT_EQ(got["SLURM_MEM_PER_NODE"], "16384") << "asked for explicitly";
}

TEST(JobEnvTest, FractionalGpuAndStaleInheritedVariables) {
  JobRecord job = PeerJob(5, "frac");
  job.environment = {"SLURM_JOB_ID=1",        "SLURM_STEP_ID=9",   "SLURM_CPU_BIND=cores",
                     "CUDA_VISIBLE_DEVICES=7", "MY_VAR=a=b",        "SLURM_PROCID=3"};
  NodeAllocation a;
  a.node = "n1";
  a.cpu_milli = 500;
  a.tasks = 1;
  a.gpus = {{3, 250}};
  job.allocation = {a};
  job.restart_count = 2;
  job.submit_host = "login1";
  EnvMap got = ToMap(BuildJobEnvironment(job, "n1", TaskPlacement{}, "c"));
  EXPECT_EQ(got["SLURM_JOB_ID"], "5");
  EXPECT_EQ(got.count("SLURM_STEP_ID"), 0u) << "a stale step id is dropped";
  EXPECT_EQ(got["SLURM_PROCID"], "0");
  EXPECT_EQ(got["SLURM_CPU_BIND"], "cores") << "srun input variables are the user's";
  EXPECT_EQ(got["MY_VAR"], "a=b");
  EXPECT_EQ(got["CUDA_VISIBLE_DEVICES"], "3");
  EXPECT_EQ(got["SLURM_GPUS_ON_NODE"], "1");
  EXPECT_EQ(got["SLURM_CPUS_ON_NODE"], "1");
  EXPECT_EQ(got["SLURM_RESTART_COUNT"], "2");

  job.allocation[0].gpus.clear();
  job.submit_host = "login1";
  got = ToMap(BuildJobEnvironment(job, "n1", TaskPlacement{}, "c"));
  EXPECT_EQ(got.count("CUDA_VISIBLE_DEVICES"), 0u) << "no GPUs: the login node's value does not leak in";
  EXPECT_EQ(got.count("SLURM_GPUS_ON_NODE"), 0u);
}

// Under a device cgroup CUDA sees only the job's GPUs, numbered from 0: Slurm renumbers
// CUDA_VISIBLE_DEVICES then (ConstrainDevices=yes) and keeps the node's indexes in SLURM_*_GPUS.
// Job 6 on node n1 alone, with these CPUs, tasks and GPUs; and task `procid` (local id the
// same) of step `step_id` of `ntasks` tasks on n1.
JobRecord GpuJobOnN1(int64_t cpu_milli, int tasks, std::vector<int> gpus) {
  JobRecord job = PeerJob(6, "gpus");
  NodeAllocation a;
  a.node = "n1";
  a.cpu_milli = cpu_milli;
  a.tasks = tasks;
  a.gpus = FromStoredGpus({std::move(gpus)});
  job.allocation = {a};
  return job;
}
TaskPlacement StepTaskOnN1(int step_id, int procid, int ntasks) {
  TaskPlacement step;
  step.procid = procid;
  step.localid = procid;
  step.step_id = step_id;
  step.step_ntasks = ntasks;
  step.step_nodes = {"n1"};
  return step;
}

// SLURM_RESTART_COUNT counts the runs that started before this one: a requeued launch that never
// started on its node (lost_launches) is left out, so a script that resumes from its checkpoint
// when it is set does not look for one that no run wrote. A value in the submit environment is
// never passed on.
TEST(JobEnvTest, RestartCountLeavesLostLaunchesOut) {
  JobRecord job = PeerJob(7, "resume");
  NodeAllocation a;
  a.node = "n1";
  a.cpu_milli = 1000;
  a.tasks = 1;
  job.allocation = {a};
  job.environment = {"SLURM_RESTART_COUNT=5"};
  job.restart_count = 1;  // run 1: run 0's launch never started
  job.lost_launches = 1;
  EnvMap got = ToMap(BuildJobEnvironment(job, "n1", TaskPlacement{}, "c"));
  EXPECT_EQ(got.count("SLURM_RESTART_COUNT"), 0u) << got["SLURM_RESTART_COUNT"];
  job.restart_count = 3;  // run 3: one lost launch, two runs that started
  got = ToMap(BuildJobEnvironment(job, "n1", TaskPlacement{}, "c"));
  EXPECT_EQ(got["SLURM_RESTART_COUNT"], "2");
  TaskPlacement step;
  step.procid = 0;
  step.localid = 0;
  step.step_id = 0;
  step.step_ntasks = 1;
  step.step_nodes = {"n1"};
  got = ToMap(BuildJobEnvironment(job, "n1", step, "c"));
  EXPECT_EQ(got["SLURM_RESTART_COUNT"], "2") << "the steps see the same count";
}

TEST(JobEnvTest, ConstrainedDevicesAreRenumberedFromZero) {
  JobRecord job = GpuJobOnN1(2000, 1, {5, 2});
  EnvMap plain = ToMap(BuildJobEnvironment(job, "n1", TaskPlacement{}, "c"));
  EXPECT_EQ(plain["CUDA_VISIBLE_DEVICES"], "2,5");
  EXPECT_EQ(plain["SLURM_JOB_GPUS"], "2,5");
  EnvMap constrained = ToMap(BuildJobEnvironment(job, "n1", TaskPlacement{}, "c", /*devices_constrained=*/true));
  EXPECT_EQ(constrained["CUDA_VISIBLE_DEVICES"], "0,1");
  EXPECT_EQ(constrained["GPU_DEVICE_ORDINAL"], "0,1");
  EXPECT_EQ(constrained["SLURM_JOB_GPUS"], "2,5");
  EXPECT_EQ(constrained["SLURM_GPUS_ON_NODE"], "2");
  EnvMap in_step = ToMap(BuildJobEnvironment(job, "n1", StepTaskOnN1(0, 0, 1), "c", true));
  EXPECT_EQ(in_step["CUDA_VISIBLE_DEVICES"], "0,1");
  EXPECT_EQ(in_step["SLURM_STEP_GPUS"], "2,5");
}

// A MIG slice is named by its UUID in CUDA_VISIBLE_DEVICES (CUDA selects slices so); whole GPUs
// beside it keep their numbers; SLURM_JOB_GPUS keeps the node's indexes.
TEST(JobEnvTest, MigSlicesAreNamedByTheirUuids) {
  std::vector<Gpu> gpus(4);
  for (int i = 0; i < 4; ++i) gpus[i].index = i;
  gpus[1].mig_profile = "1g.18gb";
  gpus[1].uuid = "MIG-aaaaaaaa-1111-2222-3333-444444444444";
  gpus[2].mig_profile = "3g.71gb";
  gpus[2].uuid = "MIG-bbbbbbbb-1111-2222-3333-444444444444";
  gpus[3].uuid = "GPU-cccccccc-1111-2222-3333-444444444444";
  TaskPlacement where;
  where.mig_uuids = MigUuids(gpus);
  ASSERT_EQ(where.mig_uuids, (std::vector<std::string>{"", gpus[1].uuid, gpus[2].uuid, ""}));
  EXPECT_TRUE(MigUuids({gpus[0], gpus[3]}).empty()) << "no MIG on the node: nothing to say";
  JobRecord job = GpuJobOnN1(1000, 1, {2});
  EnvMap got = ToMap(BuildJobEnvironment(job, "n1", where, "c", true));
  EXPECT_EQ(got["CUDA_VISIBLE_DEVICES"], gpus[2].uuid);
  EXPECT_EQ(got["SLURM_JOB_GPUS"], "2");
  job = GpuJobOnN1(1000, 1, {1, 3});
  got = ToMap(BuildJobEnvironment(job, "n1", where, "c", true));
  EXPECT_EQ(got["CUDA_VISIBLE_DEVICES"], gpus[1].uuid + ",1") << "the whole GPU 3 is the job's second device";
  TaskPlacement step = StepTaskOnN1(0, 0, 1);
  step.mig_uuids = where.mig_uuids;
  step.step_gpus = std::vector<int>{1};
  EXPECT_EQ(ToMap(BuildJobEnvironment(job, "n1", step, "c", true))["CUDA_VISIBLE_DEVICES"], gpus[1].uuid);
}

// A step of some of the job's GPUs (srun --gpus=1) sees only those; renumbered, each is numbered
// among the step's GPUs in a step cgroup of its own, else among the job's. With per-task binding
// task L sees the L-th share; a step without GPUs loses what srun's environment named.
TEST(JobEnvTest, StepGpusAndPerTaskBinding) {
  JobRecord job = GpuJobOnN1(4000, 4, {1, 3, 5, 7});
  job.environment = {"CUDA_VISIBLE_DEVICES=0,1,2,3", "SLURM_GPUS_ON_NODE=4", "KEEP=1"};
  TaskPlacement step = StepTaskOnN1(2, 1, 2);
  step.step_gpus = std::vector<int>{5};
  EnvMap plain = ToMap(BuildJobEnvironment(job, "n1", step, "c"));
  EXPECT_EQ(plain["CUDA_VISIBLE_DEVICES"], "5");
  EXPECT_EQ(plain["SLURM_STEP_GPUS"], "5");
  EXPECT_EQ(plain["SLURM_GPUS_ON_NODE"], "1");
  EnvMap constrained = ToMap(BuildJobEnvironment(job, "n1", step, "c", true));
  EXPECT_EQ(constrained["CUDA_VISIBLE_DEVICES"], "2") << "GPU 5 is the job's third";
  EXPECT_EQ(constrained["SLURM_STEP_GPUS"], "5");
  step.step_cgroup = true;
  EnvMap own = ToMap(BuildJobEnvironment(job, "n1", step, "c", true));
  EXPECT_EQ(own["CUDA_VISIBLE_DEVICES"], "0") << "the step's own cgroup shows GPU 5 alone";
  EXPECT_EQ(own["SLURM_STEP_GPUS"], "5");
  step.step_gpus = std::vector<int>{7, 3, 99};  // 99 is not the job's: ignored
  step.gpu_bind_per_task = 1;
  EXPECT_EQ(ToMap(BuildJobEnvironment(job, "n1", step, "c", true))["CUDA_VISIBLE_DEVICES"], "1")
      << "local task 1 of GPUs 3,7, numbered among the step's";
  step.step_cgroup = false;
  step.gpu_bind_map = {{1}, {0, 1}};  // indexes among the step's GPUs (3, 7)
  step.localid = 0;
  EXPECT_EQ(ToMap(BuildJobEnvironment(job, "n1", step, "c"))["CUDA_VISIBLE_DEVICES"], "7");
  step.localid = 3;
  EXPECT_EQ(ToMap(BuildJobEnvironment(job, "n1", step, "c"))["CUDA_VISIBLE_DEVICES"], "3,7") << "entry 3 % 2";
  step.gpu_bind_map = {{5}};
  EXPECT_EQ(ToMap(BuildJobEnvironment(job, "n1", step, "c"))["CUDA_VISIBLE_DEVICES"], "3,7")
      << "an entry beyond the step's GPUs binds nothing (Slurm)";
  step.gpu_bind_map.clear();
  step.gpu_bind_single = 2;  // local tasks 0,1 on GPU 3; 2,3 on GPU 7
  EXPECT_EQ(ToMap(BuildJobEnvironment(job, "n1", step, "c"))["CUDA_VISIBLE_DEVICES"], "7");
  step.localid = 1;
  EXPECT_EQ(ToMap(BuildJobEnvironment(job, "n1", step, "c"))["CUDA_VISIBLE_DEVICES"], "3");
  step.gpu_bind_single = 0;
  step.localid = 1;
  EnvMap bound = ToMap(BuildJobEnvironment(job, "n1", step, "c"));
  EXPECT_EQ(bound["SLURM_STEP_GPUS"], "3,7");
  EXPECT_EQ(bound["CUDA_VISIBLE_DEVICES"], "7") << "local task 1 of GPUs 3,7";
  step.localid = 0;
  EXPECT_EQ(ToMap(BuildJobEnvironment(job, "n1", step, "c", true))["CUDA_VISIBLE_DEVICES"], "1");
  step.step_gpus = std::vector<int>{};
  EnvMap none = ToMap(BuildJobEnvironment(job, "n1", step, "c"));
  EXPECT_EQ(none.count("CUDA_VISIBLE_DEVICES"), 0u);
  EXPECT_EQ(none.count("SLURM_GPUS_ON_NODE"), 0u);
  EXPECT_EQ(none["KEEP"], "1");
}

TEST(JobEnvTest, StepStreamValues) {
  EXPECT_FALSE(IsStepFilePattern(""));
  EXPECT_FALSE(IsStepFilePattern("none"));
  EXPECT_FALSE(IsStepFilePattern("3"));
  EXPECT_TRUE(IsStepFilePattern("out-%j.txt"));
  EXPECT_TRUE(IsStepFilePattern("3.log"));
  EXPECT_EQ(StepStreamTask("3"), 3);
  EXPECT_EQ(StepStreamTask("0"), 0);
  for (const char* none : {"", "none", "3.log", "out-%t", "1234567890"}) EXPECT_EQ(StepStreamTask(none), std::nullopt) << none;
  EXPECT_TRUE(PatternPerTaskOrNode("o-%t"));
  EXPECT_TRUE(PatternPerTaskOrNode("o-%N.%n"));
  EXPECT_FALSE(PatternPerTaskOrNode("o-%j.%s"));
}

TEST(JobEnvTest, OutputPatterns) {
  JobRecord job = PeerJob(9148, "gpujob");
  TaskPlacement batch;
  TaskPlacement task;
  task.node_index = 1;
  task.procid = 3;
  task.step_id = 0;
  struct Case {
    const char* pattern;
    const TaskPlacement* where;
    const char* want;
  };
  const Case cases[] = {
      {"slurm-%j.out", &batch, "slurm-9148.out"},
      {"%x-%8j.out", &batch, "gpujob-00009148.out"},
      {"%u/%A_%a.log", &batch, "root/9148_4294967294.log"},
      {"%s-%t-%n", &batch, "batch-0-0"},
      {"%s-%t-%n-%3t", &task, "0-3-1-003"},
      {"/abs/%N.out", &batch, "/abs/n1.out"},
      {"100%%", &batch, "100%"},
      {"a\\%j", &batch, "a%j"},
      {"%q%", &batch, "%q%"},
      {"", &batch, ""},
  };
  for (const Case& c : cases) EXPECT_EQ(ExpandOutputPattern(c.pattern, job, "n1.cluster.org", *c.where), c.want) << c.pattern;
}

}  // namespace
}  // namespace muster
