#include "cli/srun_args.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <span>

namespace muster {
namespace {

using Args = std::vector<std::string>;

SrunOptions Parse(const Args& a) {
  StatusOr<SrunOptions> o = ParseSrunArgs(a);
  EXPECT_TRUE(o.ok()) << o.status().message();
  return o.ok() ? *o : SrunOptions{};
}

std::string ErrorOf(const Args& a) {
  StatusOr<SrunOptions> o = ParseSrunArgs(a);
  EXPECT_FALSE(o.ok());
  return o.ok() ? "" : o.status().message();
}

TEST(ParseSrunArgs, OptionsStopAtTheCommand) {
  SrunOptions o =
      Parse({"-N", "2", "-n4", "--ntasks-per-node=2", "-l", "-J", "train", "torchrun", "--nnodes=2", "-n", "x"});
  EXPECT_EQ(o.nnodes, 2);
  EXPECT_EQ(o.ntasks, 4);
  EXPECT_EQ(o.ntasks_per_node, 2);
  EXPECT_TRUE(o.label);
  EXPECT_EQ(o.job_name, "train");
  EXPECT_EQ(o.command, (Args{"torchrun", "--nnodes=2", "-n", "x"}));
  o = Parse({"--nodes=1", "--ntasks", "3", "--label", "--job-name=x", "--", "-weird-program"});
  EXPECT_EQ(o.nnodes, 1);
  EXPECT_EQ(o.ntasks, 3);
  EXPECT_EQ(o.command, (Args{"-weird-program"}));
  o = Parse({"-lu", "-K", "hostname"});  // grouped flags; -K without a value
  EXPECT_TRUE(o.label);
  EXPECT_TRUE(o.kill_on_bad_exit);
  EXPECT_EQ(o.command, (Args{"hostname"}));
  EXPECT_FALSE(Parse({"--kill-on-bad-exit=0", "true"}).kill_on_bad_exit);
  EXPECT_TRUE(Parse({"--kill-on-bad=1", "true"}).kill_on_bad_exit);  // unique prefix
  EXPECT_EQ(Parse({"-N", "2-4", "true"}).nnodes, 2);
  EXPECT_EQ(Parse({"-N-3", "true"}).nnodes, 1);  // Slurm: an empty minimum is 1
  EXPECT_EQ(Parse({"--nodes=-3", "true"}).nnodes, 1);
  EXPECT_TRUE(Parse({"--help"}).help);
  EXPECT_TRUE(Parse({"-V"}).version);
}

TEST(ParseSrunArgs, ErrorsInSlurmsWords) {
  EXPECT_EQ(ErrorOf({"--bogus", "true"}),
            "srun: unrecognized option '--bogus'\nTry \"srun --help\" for more information\n");
  EXPECT_EQ(ErrorOf({"-j", "true"}), "srun: invalid option -- 'j'\nTry \"srun --help\" for more information\n");
  EXPECT_EQ(ErrorOf({"-n"}), "srun: option requires an argument -- 'n'\nTry \"srun --help\" for more information\n");
  EXPECT_EQ(ErrorOf({"--ntasks"}),
            "srun: option '--ntasks' requires an argument\nTry \"srun --help\" for more information\n");
  EXPECT_EQ(ErrorOf({"-n", "x", "true"}), "srun: error: Invalid numeric value \"x\" for --ntasks.\n");
  EXPECT_EQ(ErrorOf({"-n", "0", "true"}), "srun: error: Invalid numeric value \"0\" for --ntasks.\n");
  EXPECT_EQ(ErrorOf({"-N", "two", "true"}), "srun: error: \"two\" is not a valid node count\n");
  EXPECT_EQ(ErrorOf({"-l"}), "srun: fatal: No command given to execute.\n");
  EXPECT_NE(ErrorOf({"--n", "1", "true"}).find("is ambiguous"), std::string::npos);
  // The job-carried options are listed among the possibilities where srun's own rows had them.
  EXPECT_EQ(ErrorOf({"--co", "true"}).rfind("srun: option '--co' is ambiguous; possibilities: '--constraint' "
                                            "'--comment' '--compress' '--container'",
                                            0),
            0u);
  EXPECT_EQ(ErrorOf({"--w", "true"}).rfind("srun: option '--w' is ambiguous; possibilities: '--wait' '--wckey'", 0),
            0u);
}

// srun's input variables, as Slurm 22.05's srun read them on the peer: below the command line,
// flags set by "", "yes" or a non-zero number, an empty value refused as the option's would be.
TEST(ParseSrunArgs, InputVariablesComeBeforeTheCommandLine) {
  std::map<std::string, std::string> env = {{"SLURM_NTASKS", "4"},     {"SLURM_NPROCS", "9"},
                                            {"SLURM_NNODES", "2"},     {"SLURM_STDOUTMODE", "g.out"},
                                            {"SLURM_OVERCOMMIT", "1"}, {"SLURM_LABELIO", "0"},
                                            {"SLURM_DEBUG", "2"},      {"SLURM_UNBUFFEREDIO", "yes"},
                                            {"SLURM_JOB_ID", "7"},     {"SLURM_JOB_NODELIST", "n[1-2]"}};
  const auto getenv = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  StatusOr<SrunOptions> o = ParseSrunArgs({"-n", "1", "true"}, getenv);
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->ntasks, 1) << "the command line wins";
  EXPECT_EQ(o->nnodes, 2);
  EXPECT_EQ(o->output, "g.out");
  EXPECT_TRUE(o->overcommit);
  EXPECT_FALSE(o->label) << "0 unsets a flag";
  EXPECT_TRUE(o->unbuffered);
  EXPECT_EQ(o->verbose, 2);
  EXPECT_FALSE(o->ntasks_per_node_cli);
  EXPECT_EQ(DefinedOptionsText(*o),
            "srun: defined options\n"
            "srun: -------------------- --------------------\n"
            "srun: (null)              : n[1-2]\n"
            "srun: jobid               : 7\n"
            "srun: nodes               : 2\n"
            "srun: ntasks              : 1\n"
            "srun: output              : g.out\n"
            "srun: overcommit          : set\n"
            "srun: unbuffered          : set\n"
            "srun: verbose             : 2\n"
            "srun: -------------------- --------------------\n"
            "srun: end of defined options\n");
  env["SLURM_NTASKS"] = "";
  EXPECT_EQ(ParseSrunArgs({"true"}, getenv).status().message(), "srun: error: Invalid numeric value \"\" for --ntasks.\n");
  EXPECT_TRUE(ParseSrunArgs({"--ntasks-per-node=1", "true"}, [](const char*) -> const char* { return nullptr; })
                  ->ntasks_per_node_cli);
}

// The values srun -v shows as Slurm's does (captured from the peer's srun -v).
TEST(ParseSrunArgs, DefinedOptionsInSlurmsOrderAndForms) {
  StatusOr<SrunOptions> o = ParseSrunArgs({"-v", "-t", "1", "-J", "x", "-i", "none", "--gres=gpu:1", "--exclusive",
                                           "-K", "-A", "root", "true"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  std::vector<std::string> shown;
  for (const auto& [name, value] : o->defined) shown.push_back(name + "=" + value);
  EXPECT_EQ(shown, (std::vector<std::string>{"account=root", "exclusive=exclusive", "gres=gres:gpu:1", "input=/dev/null",
                                             "job-name=x", "kill-on-bad-exit=1", "time=00:01:00", "verbose=1"}));
}

TEST(TaskLabel, AsWideAsTheLargestTaskId) {
  EXPECT_EQ(TaskLabel(0, 1), "0: ");
  EXPECT_EQ(TaskLabel(3, 10), "3: ");
  EXPECT_EQ(TaskLabel(3, 11), " 3: ");
  EXPECT_EQ(TaskLabel(10, 11), "10: ");
}

TEST(LineLabeler, LabelsWholeLinesAndKeepsPartialOnes) {
  LineLabeler l("1: ");
  EXPECT_EQ(l.Add("a\nb"), "1: a\n");
  EXPECT_EQ(l.Add("c\n\nd"), "1: bc\n1: \n");
  EXPECT_EQ(l.Finish(), "1: d");
  EXPECT_EQ(l.Finish(), "");
  LineLabeler none;
  EXPECT_EQ(none.Add("x\n"), "x\n");
}

TEST(TaskExitMessage, SlurmsWording) {
  EXPECT_EQ(TaskExitMessage("node2", 1, 3, 0, false), "node2: task 1: Exited with exit code 3");
  EXPECT_EQ(TaskExitMessage("node1", 0, 0, SIGKILL, false), "node1: task 0: Killed");
  EXPECT_EQ(TaskExitMessage("n1", 4, 0, SIGSEGV, true), "n1: task 4: Segmentation fault (core dumped)");
  EXPECT_EQ(TaskExitMessage("n1", 0, 0, 0, false), "");
  EXPECT_EQ(TaskExitStatus(3, 0), 3);
  EXPECT_EQ(TaskExitStatus(0, SIGTERM), 128 + SIGTERM);
}

TEST(TaskRanges, GroupsRuns) {
  EXPECT_EQ(TaskRanges({3}), "task 3");
  EXPECT_EQ(TaskRanges({0, 1, 2, 5, 7, 8}), "tasks 0-2,5,7-8");
}

TEST(SrunArgs, StepOptions) {
  SrunOptions o = Parse({"--jobid=42.3", "--multi-prog", "-o", "out-%t", "-e", "none", "-i", "in", "--export=NONE",
                         "--task-prolog=p.sh", "--task-epilog", "e.sh", "--cpu-bind=verbose,none", "-I5", "--overlap",
                         "conf"});
  EXPECT_EQ(o.jobid, 42);
  EXPECT_TRUE(o.multi_prog);
  EXPECT_EQ(o.output, "out-%t");
  EXPECT_EQ(o.error, "none");
  EXPECT_EQ(o.input, "in");
  EXPECT_EQ(o.export_mode, "NONE");
  EXPECT_EQ(o.task_prolog, "p.sh");
  EXPECT_EQ(o.task_epilog, "e.sh");
  EXPECT_EQ(o.immediate, 5);
  EXPECT_TRUE(o.overlap);
  EXPECT_EQ(o.command, (std::vector<std::string>{"conf"}));
  EXPECT_EQ(Parse({"-I", "true"}).immediate, 0);
  EXPECT_TRUE(Parse({"-u", "true"}).unbuffered);
  SrunOptions shaped = Parse({"-c", "2", "--exclusive", "-G", "1", "true"});
  EXPECT_EQ(shaped.cpus_per_task, 2);
  EXPECT_TRUE(shaped.exclusive);
  EXPECT_EQ(shaped.resource_args, (std::vector<std::string>{"--cpus-per-task=2", "--exclusive", "--gpus=1"}));
  EXPECT_TRUE(ShapesStep("--cpus-per-task=2"));
  EXPECT_TRUE(ShapesStep("--mem=2G"));
  EXPECT_TRUE(ShapesStep("--mem-per-cpu=500"));
  EXPECT_TRUE(ShapesStep("--mem-per-gpu=500"));
  EXPECT_FALSE(ShapesStep("--partition=p"));
  EXPECT_TRUE(ShapesStep("--constraint=a|b"));
  EXPECT_EQ(Parse({"--mem-per-gpu=1G", "true"}).mem_per_gpu_mb, 1024);
  EXPECT_EQ(Parse({"--mem-per-gpu=1G", "true"}).mem_per_cpu_mb, -1);
  EXPECT_EQ(Parse({"--mem=2G", "true"}).mem_mb, 2048);
  EXPECT_EQ(Parse({"--mem-per-cpu=500", "true"}).mem_per_cpu_mb, 500);
  EXPECT_EQ(Parse({"true"}).mem_mb, -1);
  EXPECT_EQ(ParseSrunArgs({"--mem=lots", "true"}).status().message(), "srun: error: Invalid --mem specification\n");
  EXPECT_TRUE(ShapesStep("--exclusive"));
  EXPECT_TRUE(ShapesStep("--gpus=1"));
  EXPECT_TRUE(ShapesStep("--gres=gpu:2"));
  EXPECT_TRUE(ShapesStep("--nodelist=n1"));
  EXPECT_TRUE(ShapesStep("--time=5"));
  EXPECT_EQ(Parse({"-t", "0:02", "true"}).time_limit_s, 2);
  EXPECT_EQ(Parse({"--time=UNLIMITED", "true"}).time_limit_s, 0);
  EXPECT_EQ(Parse({"true"}).time_limit_s, 0);
  EXPECT_EQ(ParseSrunArgs({"-t", "soon", "true"}).status().message(), "srun: error: Invalid time limit specification\n");
  EXPECT_TRUE(ShapesStep("--exclude=n1"));
  EXPECT_EQ(ParseSrunArgs({"-c", "x", "true"}).status().message(),
            "srun: error: Invalid numeric value \"x\" for --cpus-per-task.\n");
  EXPECT_FALSE(Parse({"true"}).unbuffered);
  EXPECT_EQ(Parse({"true"}).immediate, -1);
  EXPECT_EQ(ParseSrunArgs({"--jobid=x", "true"}).status().message(), "srun: error: Invalid job id x\n");
  EXPECT_EQ(Parse({"--cpu-bind=map_cpu:1", "true"}).cpu_bind, "map_cpu:1");
  EXPECT_TRUE(Parse({"-Z", "-w", "n1", "true"}).no_allocate);
  EXPECT_FALSE(Parse({"true"}).no_allocate);
  StatusOr<SrunOptions> pty = ParseSrunArgs({"--pty", "bash", "-i"});
  ASSERT_TRUE(pty.ok()) << pty.status().ToString();
  EXPECT_TRUE(pty->pty);
  EXPECT_TRUE(pty->unbuffered);  // as in Slurm
  EXPECT_EQ(pty->command, (std::vector<std::string>{"bash", "-i"}));
}

// The GPU options size a step as they size a job; --gpus-per-task implies per-task binding.
TEST(SrunArgs, StepGpus) {
  EXPECT_FALSE(Parse({"true"}).gpus.given);
  SrunOptions g = Parse({"-G", "2", "true"});
  EXPECT_EQ(g.gpus, (StepGpuRequest{.given = true, .total = 2}));
  EXPECT_EQ(g.gpu_bind_per_task, -1);
  EXPECT_EQ(Parse({"--gres=gpu:a100:3", "true"}).gpus, (StepGpuRequest{.given = true, .per_node = 3}));
  EXPECT_EQ(Parse({"--gpus-per-node=1", "true"}).gpus, (StepGpuRequest{.given = true, .per_node = 1}));
  EXPECT_EQ(Parse({"--gres=none", "true"}).gpus, (StepGpuRequest{.given = true}));
  EXPECT_EQ(Parse({"--gres=gpu:0", "true"}).gpus, (StepGpuRequest{.given = true}));
  SrunOptions per_task = Parse({"--gpus-per-task=1", "true"});  // -n from the allocation
  EXPECT_EQ(per_task.gpus, (StepGpuRequest{.given = true, .per_task = 1}));
  EXPECT_EQ(per_task.gpu_bind_per_task, 1);
  EXPECT_EQ(Parse({"--gpus-per-task=2", "--gpu-bind=none", "-n2", "true"}).gpu_bind_per_task, 0);
  EXPECT_EQ(Parse({"--gpu-bind=per_task:1", "-G4", "true"}).gpu_bind_per_task, 1);
  EXPECT_EQ(Parse({"--gpu-bind=closest", "-n2", "--gpus-per-task=1", "true"}).gpu_bind_per_task, 0)
      << "closest without CPU binding: all the step's GPUs";
  EXPECT_EQ(Parse({"--gpu-bind=single:2", "true"}).gpu_bind_single, 2);
  EXPECT_EQ(ParseSrunArgs({"--gpu-bind=nearby", "true"}).status().message(),
            "srun: error: Invalid --gpu-bind argument: gpu:nearby\n");
  using Map = std::vector<std::vector<int>>;
  EXPECT_EQ(Parse({"--gpu-bind=map_gpu:1,0", "true"}).gpu_bind_map, (Map{{1}, {0}}));
  EXPECT_EQ(Parse({"--gpu-bind=map_gpu:0*2,3", "true"}).gpu_bind_map, (Map{{0}, {0}, {3}}));
  EXPECT_EQ(Parse({"--gpu-bind=mask_gpu:0x3,C", "true"}).gpu_bind_map, (Map{{0, 1}, {2, 3}}));
  const SrunOptions mapped = Parse({"--gpus-per-task=1", "--gpu-bind=map_gpu:1,0", "-n2", "true"});
  EXPECT_EQ(mapped.gpu_bind_per_task, 0) << "a map, not per_task, binds";
  for (const char* bad : {"map_gpu:", "map_gpu:x", "map_gpu:1,,2", "map_gpu:1*", "map_gpu:100", "mask_gpu:0x0",
                          "mask_gpu:0xZ", "single:0", "single:x"}) {
    EXPECT_EQ(ParseSrunArgs({std::string("--gpu-bind=") + bad, "true"}).status().message(),
              std::string("srun: error: Invalid --gpu-bind argument: gpu:") + bad + "\n");
  }
  StatusOr<SrunOptions> bad = ParseSrunArgs({"--gres=fpga:1", "true"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "srun: error: --gres: Invalid generic resource (gres) specification 'fpga:1': unknown gres 'fpga' "
            "(expected gpu[:type][:count])\n");
}

TEST(MultiProg, RanksArgumentsAndSubstitutions) {
  StatusOr<std::vector<std::vector<std::string>>> a =
      ParseMultiProg("# comment\n\n0 ./master --rank %t\n1-2,4 worker 'a b' \"%o of\"  # note\n3 * x\n", "f", 5);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ((*a)[0], (std::vector<std::string>{"./master", "--rank", "0"}));
  EXPECT_EQ((*a)[1], (std::vector<std::string>{"worker", "a b", "0 of"}));
  EXPECT_EQ((*a)[4], (std::vector<std::string>{"worker", "a b", "2 of"}));
  EXPECT_EQ((*a)[3], (std::vector<std::string>{"*", "x"}));
  StatusOr<std::vector<std::vector<std::string>>> star = ParseMultiProg("* hostname\n", "f", 3);
  ASSERT_TRUE(star.ok());
  EXPECT_EQ((*star)[2], (std::vector<std::string>{"hostname"}));
}

TEST(MultiProg, ErrorsNameTheLineAndTheTask) {
  EXPECT_EQ(ParseMultiProg("0 a\n", "c.conf", 2).status().message(),
            "srun: error: Configuration file c.conf invalid, no record for task id 1\n");
  EXPECT_EQ(ParseMultiProg("0 a\n0-1 b\n", "c.conf", 2).status().message(),
            "srun: error: Line 2 of configuration file c.conf: task 0 named twice\n"
            "srun: error: Configuration file c.conf invalid\n");
  EXPECT_EQ(ParseMultiProg("0-5 a\n", "c.conf", 2).status().message(),
            "srun: error: Line 1 of configuration file c.conf: task id 5 out of range (the step has 2 tasks)\n"
            "srun: error: Configuration file c.conf invalid\n");
  EXPECT_FALSE(ParseMultiProg("0 'a\n1 b\n", "c.conf", 2).ok());
  EXPECT_FALSE(ParseMultiProg("0\n1 b\n", "c.conf", 2).ok());
  EXPECT_FALSE(ParseMultiProg("x-1 a\n", "c.conf", 2).ok());
}

}  // namespace
}  // namespace muster

namespace muster {
namespace {

TEST(ParseSrunArgs, SlurmsOtherOptionsAreImplementedAcceptedOrRefusedByName) {
  SrunOptions o = Parse({"-D", "sub/dir", "-H", "--test-only", "--quit-on-interrupt", "--comment=why", "-d",
                         "afterok:12", "--nice=5", "--mpi=none", "--wckey", "proj", "true"});
  EXPECT_EQ(o.chdir, "sub/dir");
  EXPECT_TRUE(o.hold);
  EXPECT_TRUE(o.test_only);
  EXPECT_TRUE(o.quit_on_interrupt);
  EXPECT_EQ(o.options.comment, "why");
  EXPECT_EQ(o.options.wckey, "proj");
  EXPECT_EQ(o.dependency, "afterok:12");
  EXPECT_EQ(o.nice, 5);
  EXPECT_EQ(Parse({"--nice", "true"}).nice, 100);  // an optional value is never the next word
  EXPECT_EQ(ErrorOf({"--nice=x", "true"}), "srun: error: Invalid --nice value: x\n");
  EXPECT_NE(ErrorOf({"--mpi=pmix", "true"}).find("--mpi=pmix is not supported by Muster"), std::string::npos);
  // Accepted without effect: they change nothing srun does (the table's notes say why).
  EXPECT_TRUE(Parse({"-X", "true"}).quit_on_interrupt);  // Slurm: SIGINT forwarded at once
  o = Parse({"-v", "-Q", "-T", "4", "-W", "0", "--slurmd-debug=3", "--cpu-freq=high", "true"});
  EXPECT_EQ(o.command, (Args{"true"}));
  EXPECT_EQ(o.ntasks, 0);  // no row of no effect lands on another option
  EXPECT_EQ(ErrorOf({"-n1", ":", "-n2", "hostname"}),
            "srun: error: heterogeneous steps (':' between components) are not supported by Muster; run one srun per "
            "component (--het-group=K inside a heterogeneous job)\n");
  // --tmp and --mincpus are resource options (for a new allocation, as in sbatch).
  EXPECT_EQ(Parse({"--tmp=10G", "--mincpus=4", "true"}).resource_args, (Args{"--tmp=10G", "--mincpus=4"}));
  // Refused by name, with exit 1 (not getopt's complaint).
  EXPECT_EQ(ErrorOf({"--ntasks-per-core=2", "true"}), "srun: error: --ntasks-per-core is not supported by Muster\n");
  EXPECT_EQ(ErrorOf({"-k", "true"}), "srun: error: --no-kill is not supported by Muster\n");
  EXPECT_EQ(ErrorOf({"-m", "arbitrary", "true"}), "srun: error: --distribution is not supported by Muster\n");
  EXPECT_EQ(ErrorOf({"--slurmd_debug=2", "-M", "x", "true"}), "srun: error: --clusters is not supported by Muster\n");
}

TEST(ParseSrunArgs, EveryOptionOfTheTableIsFound) {
  for (const OptionSpec& spec : std::span<const OptionSpec>(SrunOptionTable())) {
    Args args = {std::string("--") + spec.name};
    if (spec.arg == OptionArg::kRequired) args.push_back("none");
    args.push_back("true");
    StatusOr<SrunOptions> o = ParseSrunArgs(args);
    const std::string m = o.ok() ? "" : o.status().message();
    EXPECT_EQ(m.find("unrecognized option"), std::string::npos) << spec.name << ": " << m;
    EXPECT_EQ(m.find("is ambiguous"), std::string::npos) << spec.name << ": " << m;
    if (spec.use == OptionUse::kUnsupported) {
      EXPECT_EQ(m, "srun: error: --" + spec.Canonical() + " is not supported by Muster\n") << spec.name;
    }
  }
}

TEST(StepDirectory, ChdirIsRelativeToSrunsDirectory) {
  EXPECT_EQ(StepDirectory("", "/home/a"), "/home/a");
  EXPECT_EQ(StepDirectory("/scratch", "/home/a"), "/scratch");
  EXPECT_EQ(StepDirectory("run1", "/home/a"), "/home/a/run1");
  EXPECT_EQ(StepDirectory("run1", "/"), "/run1");
}

}  // namespace
}  // namespace muster
