#include "cli/option_doc.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/strings.h"
#include "cli/command_options.h"
#include "cli/sacct_command.h"
#include "cli/sdiag_command.h"
#include "cli/sreport_command.h"
#include "cli/salloc_command.h"
#include "cli/sbatch_args.h"
#include "cli/srun_args.h"

namespace muster {
namespace {

TEST(OptionDocTest, CompatibilityPageHoldsTheGeneratedTables) {
  const std::string path = std::string(MUSTER_SOURCE_DIR) + "/docs/slurm-compatibility.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  StatusOr<std::string> regenerated = WithGeneratedOptions(text.str());
  ASSERT_TRUE(regenerated.ok()) << regenerated.status().message();
  EXPECT_TRUE(*regenerated == text.str())
      << "docs/slurm-compatibility.md's options tables differ from the commands' tables; regenerate them with\n"
         "  build/dev/muster options-doc docs/slurm-compatibility.md\n"
         "(run in the source tree) and commit the page.";
}

TEST(OptionDocTest, MarkersAreRequired) {
  EXPECT_FALSE(WithGeneratedOptions("no markers here\n").ok());
  const std::string doc =
      std::string("before\n") + kOptionsDocBegin + "\nSTALE TEXT\n" + kOptionsDocEnd + "\nafter\n";
  StatusOr<std::string> r = WithGeneratedOptions(doc);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->find("STALE TEXT"), std::string::npos);
  EXPECT_NE(r->find("### sbatch"), std::string::npos);
  EXPECT_NE(r->find("### scontrol commands"), std::string::npos);
  EXPECT_TRUE(r->starts_with("before\n"));
  EXPECT_TRUE(r->ends_with(std::string(kOptionsDocEnd) + "\nafter\n"));
  EXPECT_EQ(*WithGeneratedOptions(*r), *r);  // stable
}

TEST(OptionDocTest, RowsReadAsUsersNeed) {
  const std::string md = OptionsMarkdown();
  EXPECT_NE(md.find("| `--bb` |  | required | refused | "), std::string::npos) << md.substr(0, 2000);
  EXPECT_NE(md.find("| `--account` | `-A` | required | as Slurm |  |"), std::string::npos);
  EXPECT_NE(md.find("| `--verbose` | `-v` | none | accepted, no effect | "), std::string::npos);
  EXPECT_NE(md.find("| `--cluster` | `-M` | required | refused | alias of `--clusters`"), std::string::npos);
  EXPECT_NE(md.find("| `reconfigure` | as Slurm, except | the leading controller reads muster.yaml"), std::string::npos);
  EXPECT_NE(md.find("| `show job` | as Slurm, except | "), std::string::npos);
}

// salloc's own rows (the rest are sbatch's): a refused one is refused by name before any controller
// is asked.
TEST(OptionDocTest, SallocRefusesItsOwnUnsupportedOptionsByName) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-K", "true"}, std::vector<std::string>{"--kill-command=9", "true"}}) {
    std::ostringstream out, err;
    EXPECT_EQ(SallocMain(args, out, err), 1);
    EXPECT_EQ(err.str(), "salloc: error: --kill-command is not supported by Muster\n");
  }
}

// Every option a command does not honour as Slurm does says why on the page.
TEST(OptionDocTest, EveryRefusedOrIgnoredOptionHasANote) {
  const std::vector<std::pair<const char*, OptionTable>> tables = {
      {"sbatch", SbatchOptionTable()},     {"srun", SrunOptionTable()},       {"salloc", SallocOptionTable()},
      {"squeue", SqueueOptionTable()},     {"sinfo", SinfoOptionTable()},     {"scancel", ScancelOptionTable()},
      {"scontrol", ScontrolOptionTable()}, {"sacct", SacctOptionTable()},     {"sacctmgr", SacctmgrOptionTable()},
      {"sprio", SprioOptionTable()},       {"sshare", SshareOptionTable()},   {"sreport", SreportOptionTable()},
      {"sdiag", SdiagOptionTable()},
  };
  for (const auto& [command, table] : tables) {
    for (const OptionSpec& o : table) {
      if (o.use == OptionUse::kUnsupported || o.use == OptionUse::kIgnored) {
        EXPECT_NE(o.note, nullptr) << command << " --" << o.name << " -" << o.short_name;
      }
    }
  }
  for (const ScontrolCommandSpec& c : ScontrolCommandTable()) {
    if (c.use == OptionUse::kUnsupported || c.use == OptionUse::kIgnored) EXPECT_NE(c.note, nullptr) << c.name;
  }
}

// Every option that Slurm 22.05.8's commands print in --help and --usage (Debian bookworm's
// slurm-client, captured 2026-12-05; sacct's from its help text, since its --help needs slurmdbd)
// has a row in the command's table: implemented, accepted or refused by name, never getopt's
// "unrecognized option". A long name may be the unique prefix of one option, as getopt_long finds
// it (squeue's help says --account for --accounts). Left out: sbatch's and salloc's usage lines
// show "[-r n]", which their getopt does not take (only srun has -r, --relative).
struct PeerOptions {
  const char* command;
  const char* longs;   // blank-separated
  const char* shorts;  // the letters
};
constexpr PeerOptions kPeerOptions[] = {
    {"sbatch", "account array bb bbf begin chdir cluster-constraint clusters comment constraint container contiguous core-spec cores-per-socket cpu-freq cpus-per-gpu cpus-per-task deadline delay-boot dependency distribution error exclude exclusive export export-file extra-node-info get-user-env gid gpu-bind gpu-freq gpus gpus-per-node gpus-per-socket gpus-per-task gres gres-flags help hold ignore-pbs input job-name licenses mail-type mail-user mcs-label mem mem-bind mem-per-cpu mem-per-gpu mincpus network nice no-kill no-requeue nodefile nodelist nodes ntasks ntasks-per-core ntasks-per-node ntasks-per-socket output overcommit oversubscribe parsable partition power priority profile propagate qos quiet reboot requeue reservation signal sockets-per-node spread-job switches thread-spec threads-per-core time time-min tmp uid usage use-min-nodes verbose version wait wckey wrap",
     "ABCDFGHJLMNOQSVWabcdehikmnopqstvwx"},
    {"srun", "account acctg-freq bb bbf bcast bcast-exclude begin chdir cluster-constraint clusters comment compress constraint container contiguous core-spec cores-per-socket cpu-bind cpu-freq cpus-per-gpu cpus-per-task ctrl-comm-ifhn deadline delay-boot dependency disable-status distribution epilog error exact exclude exclusive export extra-node-info gpu-bind gpu-freq gpus gpus-per-node gpus-per-socket gpus-per-task gres gres-flags help het-group hold immediate input job-name jobid kill-on-bad-exit label licenses mail-type mail-user mcs-label mem mem-bind mem-per-cpu mem-per-gpu mincpus mpi mpi-combine multi-prog network nice no-allocate no-kill nodelist nodes ntasks ntasks-per-core ntasks-per-node ntasks-per-socket output overcommit overlap oversubscribe partition power preserve-env priority profile prolog propagate pty qos quiet quit-on-interrupt reboot relative reservation resv-ports send-libs signal slurmd-debug slurmd_debug sockets-per-node spread-job switches task-epilog task-prolog thread-spec threads threads-per-core time time-min tmp unbuffered usage use-min-nodes verbose version wait wckey",
     "ABCDEGHIJKLMNOQSTVWXZbcdehiklmnopqrstuvwx"},
    {"salloc", "account bb bbf begin bell chdir cluster-constraint clusters comment constraint container contiguous core-spec cores-per-socket cpu-freq cpus-per-gpu cpus-per-task deadline delay-boot dependency distribution exclude exclusive extra-node-info get-user-env gid gpu-bind gpu-freq gpus gpus-per-node gpus-per-socket gpus-per-task gres gres-flags help hold immediate job-name kill-command licenses mail-type mail-user mcs-label mem mem-bind mem-per-cpu mem-per-gpu mincpus network nice no-bell no-kill nodefile nodelist nodes ntasks ntasks-per-core ntasks-per-node ntasks-per-socket overcommit oversubscribe partition power priority profile qos quiet reboot reservation signal sockets-per-node spread-job switches thread-spec threads-per-core time time-min tmp uid usage use-min-nodes verbose version wckey",
     "ABCDFGHIJKLMNOQSVbcdhkmnpqstvwx"},
    {"squeue", "Format account all array array-unique clusters federation format help hide iterate job json licenses local long name noconvert nodelist noheader partition qos reservation sibling sort start states step usage user verbose version yaml",
     "ALMORSVahijlnopqrstuvw"},
    {"sinfo", "Format Node all clusters dead exact federation format help hide iterate json list-reasons local long noconvert nodes noheader partition reservation responding sort states summarize usage verbose version yaml",
     "MNORSTVadehilnoprstv"},
    {"scancel", "account batch clusters full help hurry interactive name nodelist partition qos quiet reservation sibling signal state usage user verbose version wckey",
     "AHMQRVbfinpqstuvw"},
    {"scontrol", "all cluster details federation future help hide local oneliner quiet sibling uid verbose version",
     "FMQVadhouv"},
    {"sacct", "accounts allclusters allocations allusers associations batch-script brief clusters completion delimiter duplicates endtime env-vars federation file format gid group help helpformat jobs json local long name ncpus nnodes noconvert nodelist noheader parsable parsable2 partition qos starttime state timelimit-max timelimit-min truncate uid units usage user verbose version wckeys whole-hetjob yaml",
     "ABDEIKLMNPSTVWXabcefghijklnopqrsuvx"},
    {"sacctmgr", "associations help immediate noheader oneliner parsable parsable2 quiet readonly verbose version",
     "PQVhinoprsv"},
    {"sprio", "cluster federation format help jobs local long noheader norm partition sibling usage user verbose version weights",
     "MVhjlnopuvw"},
    {"sshare", "Users accounts all cluster format help helpformat long noheader parsable parsable2 partition usage users verbose version",
     "AMPUVaelmnopuv"},
    // sreport's from its getopt table (src/sreport/sreport.c), since its --help needs slurmdbd.
    {"sreport", "all_clusters cluster federation help immediate local noheader parsable parsable2 quiet sort tres usage verbose version",
     "MPQTVahnpstv"},
};

TEST(OptionDocTest, EveryOptionOfSlurmsHelpIsInTheTables) {
  for (const PeerOptions& peer : kPeerOptions) {
    const std::string command = peer.command;
    std::vector<OptionTable> tables;
    if (command == "sbatch") tables = {SbatchOptionTable()};
    if (command == "srun") tables = {SrunOptionTable()};
    if (command == "salloc") tables = {SallocOptionTable(), SbatchOptionTable()};
    if (command == "squeue") tables = {SqueueOptionTable()};
    if (command == "sinfo") tables = {SinfoOptionTable()};
    if (command == "scancel") tables = {ScancelOptionTable()};
    if (command == "scontrol") tables = {ScontrolOptionTable()};
    if (command == "sacct") tables = {SacctOptionTable()};
    if (command == "sacctmgr") tables = {SacctmgrOptionTable()};
    if (command == "sprio") tables = {SprioOptionTable()};
    if (command == "sshare") tables = {SshareOptionTable()};
    if (command == "sreport") tables = {SreportOptionTable()};
    ASSERT_FALSE(tables.empty()) << command;
    std::set<char> shorts;
    for (OptionTable t : tables) {
      for (const OptionSpec& o : t) {
        if (o.short_name != 0) shorts.insert(o.short_name);
      }
    }
    for (const std::string& name : Split(peer.longs, ' ')) {
      std::set<std::string> found;  // the canonical names it stands for
      for (OptionTable t : tables) {
        for (const OptionSpec& o : t) {
          if (o.name == name) found = {o.Canonical()};
        }
      }
      if (found.empty()) {
        for (OptionTable t : tables) {
          for (const OptionSpec& o : t) {
            if (std::string_view(o.name).starts_with(name)) found.insert(o.Canonical());
          }
        }
      }
      EXPECT_EQ(found.size(), 1u) << command << " --" << name;
    }
    for (const char* c = peer.shorts; *c != '\0'; ++c) EXPECT_TRUE(shorts.contains(*c)) << command << " -" << *c;
  }
}

// scontrol's commands in `scontrol help` of Slurm 22.05.8, and the entities of its show.
TEST(OptionDocTest, EveryScontrolCommandHasARow) {
  for (const std::string& word :
       Split("abort all cancel_reboot cluster completing create details delete errnumstr exit fsdampeningfactor "
             "help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reboot reconfigure release "
             "requeue requeuehold resume setdebug setdebugflags schedloglevel show shutdown suspend top token "
             "takeover uhold update verbose version wait_job write",
             ' ')) {
    const ScontrolCommandSpec* c = FindScontrolCommand({word});
    ASSERT_NE(c, nullptr) << word;
    EXPECT_EQ(std::string(c->name), word);
  }
  for (const std::string& entity :
       Split("aliases assoc_mgr bbstat burstBuffer config daemons dwstat federation frontend hostlist "
             "hostlistsorted hostnames job licenses node partition reservation slurmd step topology",
             ' ')) {
    const ScontrolCommandSpec* c = FindScontrolCommand({"show", entity});
    ASSERT_NE(c, nullptr) << entity;
    EXPECT_EQ(std::string(c->name), "show " + Lower(entity));
  }
  EXPECT_EQ(std::string(FindScontrolCommand({"show", "jobs", "12"})->name), "show job");
  EXPECT_EQ(std::string(FindScontrolCommand({"SHOW", "Nodes"})->name), "show node");
  EXPECT_EQ(std::string(FindScontrolCommand({"show", "hostname", "n[1-2]"})->name), "show hostnames");
  EXPECT_EQ(std::string(FindScontrolCommand({"show", "nosuch"})->name), "show");
  EXPECT_EQ(FindScontrolCommand({"nosuch"}), nullptr);
  EXPECT_EQ(FindScontrolCommand({}), nullptr);
}

}  // namespace
}  // namespace muster
