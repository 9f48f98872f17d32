#include "cli/command_options.h"

#include <gtest/gtest.h>

#include <csignal>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/sacct_command.h"

namespace muster {
namespace {

using Args = std::vector<std::string>;

const char* NoEnv(const char*) { return nullptr; }

StatusOr<SqueueArgs> Squeue(const Args& args) { return ParseSqueueArgs(args, 1000, NoEnv); }

template <typename T>
std::string ErrorOf(const StatusOr<T>& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

std::string Try(const std::string& command) { return "\nTry \"" + command + " --help\" for more information\n"; }

// Every row of `table` is found by its full name (or its short letter), as the listing names it:
// whatever `parse` says then, it is no getopt complaint; a refused option names itself.
void ExpectEveryOptionIsListedAndFound(OptionTable table, const std::function<Status(const Args&)>& parse) {
  const std::vector<OptionRow> rows = ListOptions(table);
  ASSERT_EQ(rows.size(), table.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const OptionSpec& o = table[i];
    const std::string shown = rows[i].name.empty() ? rows[i].short_name : rows[i].name;
    EXPECT_EQ(rows[i].name, *o.name ? "--" + std::string(o.name) : "") << shown;
    if (o.short_name != 0) EXPECT_EQ(rows[i].short_name, std::string("-") + o.short_name);
    Args args;
    if (rows[i].name.empty()) {
      args = {rows[i].short_name};
      if (o.arg == OptionArg::kRequired) args.push_back("v");
    } else {
      args = {rows[i].name + (o.arg == OptionArg::kNone ? "" : "=v")};
    }
    const Status st = parse(args);
    const std::string m = st.message();
    EXPECT_EQ(m.find("unrecognized option"), std::string::npos) << shown << ": " << m;
    EXPECT_EQ(m.find("invalid option"), std::string::npos) << shown << ": " << m;
    EXPECT_EQ(m.find("is ambiguous"), std::string::npos) << shown << ": " << m;
    if (o.use == OptionUse::kUnsupported) {
      EXPECT_NE(m.find(OptionName(o) + " is not supported by Muster"), std::string::npos) << shown << ": " << m;
    }
    // What the compatibility page says of an option Muster does not honour.
    if (o.use == OptionUse::kUnsupported || o.use == OptionUse::kIgnored) EXPECT_FALSE(rows[i].note.empty()) << shown;
  }
}

template <typename T>
Status StatusOf(const StatusOr<T>& r) {
  return r.ok() ? Status::Ok() : r.status();
}

// ---------------------------------------------------------------------------------------------- squeue

TEST(SqueueArgsTest, ClustersPrefixesAndOperands) {
  SqueueArgs r = *Squeue({"-hrtR", "--part=gpu,cpu", "--acc", "ml", "-U", "cv", "--me", "-ui"});
  EXPECT_TRUE(r.opt.no_header);
  EXPECT_TRUE(r.opt.expand_arrays);
  EXPECT_EQ(r.selection.states, (std::set<std::string>{"RUNNING"}));
  EXPECT_EQ(r.selection.partitions, (std::set<std::string>{"cpu", "gpu"}));
  EXPECT_EQ(r.selection.accounts, (std::set<std::string>{"cv", "ml"}));
  EXPECT_EQ(r.selection.users, (std::set<std::string>{"1000", "i"}));
  // -j takes an attached value, or the first operand, wherever it is (getopt's permutation).
  EXPECT_EQ(Squeue({"-j", "12,13", "-o", "%i"})->selection.ids, (std::set<int64_t>{12, 13}));
  EXPECT_EQ(Squeue({"-j14"})->selection.ids, (std::set<int64_t>{14}));
  EXPECT_EQ(Squeue({"--jobs=15"})->selection.ids, (std::set<int64_t>{15}));
  SqueueArgs s = *Squeue({"-s", "12.0,13"});
  EXPECT_TRUE(s.steps);
  EXPECT_EQ(s.step_ids, (std::set<std::string>{"12.0", "13"}));
  EXPECT_EQ(Squeue({"-o", "%i", "-O", "JobID"})->format, "");
  EXPECT_EQ(Squeue({"-O", "JobID", "-o", "%i"})->fields, "");
}

TEST(SqueueArgsTest, EnvironmentGivesTheDefaults) {
  const std::map<std::string, std::string> env = {{"SQUEUE_FORMAT", "%i"}, {"SQUEUE_SORT", "-i"}};
  const GetEnv getenv = [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  EXPECT_EQ(ParseSqueueArgs({}, 0, getenv)->format, "%i");
  EXPECT_EQ(ParseSqueueArgs({}, 0, getenv)->opt.sort_keys, "-i");
  EXPECT_EQ(ParseSqueueArgs({"-O", "JobID"}, 0, getenv)->format, "");
}

TEST(SqueueArgsTest, ErrorsInSlurmWords) {
  EXPECT_EQ(ErrorOf(Squeue({"--bogus"})), "squeue: unrecognized option '--bogus'" + Try("squeue"));
  EXPECT_EQ(ErrorOf(Squeue({"-hz"})), "squeue: invalid option -- 'z'" + Try("squeue"));
  EXPECT_EQ(ErrorOf(Squeue({"--us", "x"})),
            "squeue: option '--us' is ambiguous; possibilities: '--usage' '--user' '--users'" + Try("squeue"));
  EXPECT_EQ(ErrorOf(Squeue({"-o"})), "squeue: option requires an argument -- 'o'" + Try("squeue"));
  EXPECT_EQ(ErrorOf(Squeue({"--federation"})), "squeue: error: --federation is not supported by Muster\n");
  EXPECT_EQ(ErrorOf(Squeue({"-M", "other"})), "squeue: error: --clusters is not supported by Muster\n");
  EXPECT_EQ(ErrorOf(Squeue({"-j", "x"})), "squeue: error: Invalid job id: x\n");
  EXPECT_EQ(ErrorOf(Squeue({"-t", "bogus"})).rfind("squeue: error: Invalid job state specified: bogus\n", 0), 0u);
  EXPECT_EQ(ErrorOf(Squeue({"12"})).rfind("squeue: error: Unrecognized option: 12\nUsage: squeue", 0), 0u);
  EXPECT_EQ(ErrorOf(Squeue({"-j", "12", "13"})).rfind("squeue: error: Unrecognized option: 13\n", 0), 0u);
  // --users=v and --user=v are one option, though both names start with "--use".
  EXPECT_EQ(Squeue({"--use=v"})->selection.users, (std::set<std::string>{"v"}));
}

TEST(SqueueArgsTest, MetaOptionsStopTheReading) {
  EXPECT_EQ(Squeue({"--help", "--bogus"})->meta, "help");
  EXPECT_EQ(Squeue({"-V"})->meta, "version");
  EXPECT_EQ(Squeue({"--usa"})->meta, "usage");
  EXPECT_FALSE(Squeue({"--bogus", "--help"}).ok());
  EXPECT_TRUE(Squeue({"-a", "-v", "--local", "--hide"}).ok());  // accepted, no effect
}

TEST(SqueueArgsTest, ListsEveryOptionOfItsTable) {
  ExpectEveryOptionIsListedAndFound(SqueueOptionTable(), [](const Args& a) { return StatusOf(Squeue(a)); });
}

// ----------------------------------------------------------------------------------------------- sinfo

TEST(SinfoArgsTest, ClustersAndPrefixes) {
  SinfoArgs r = *ParseSinfoArgs({"-Nlh", "--list", "--summ", "--part", "gpu", "-tidle"});
  EXPECT_TRUE(r.opt.node_oriented);
  EXPECT_TRUE(r.opt.long_output);
  EXPECT_TRUE(r.opt.no_header);
  EXPECT_TRUE(r.opt.reasons);
  EXPECT_TRUE(r.opt.summarize);
  EXPECT_EQ(r.partitions, (std::set<std::string>{"gpu"}));
  EXPECT_EQ(r.opt.states, (std::vector<std::string>{"idle"}));
  EXPECT_TRUE(ParseSinfoArgs({"--json"})->json);
  EXPECT_EQ(ParseSinfoArgs({"-n", "n[1-2]"})->opt.node_names, (std::vector<std::string>{"n1", "n2"}));
}

TEST(SinfoArgsTest, ErrorsInSlurmWords) {
  EXPECT_EQ(ErrorOf(ParseSinfoArgs({"--bogus"})), "sinfo: unrecognized option '--bogus'" + Try("sinfo"));
  EXPECT_EQ(ErrorOf(ParseSinfoArgs({"-Nz"})), "sinfo: invalid option -- 'z'" + Try("sinfo"));
  EXPECT_EQ(ErrorOf(ParseSinfoArgs({"--no"})),
            "sinfo: option '--no' is ambiguous; possibilities: '--nodes' '--noconvert' '--noheader'" + Try("sinfo"));
  EXPECT_EQ(ErrorOf(ParseSinfoArgs({"-T"})), "sinfo: error: --reservation is not supported by Muster\n");
  EXPECT_EQ(ErrorOf(ParseSinfoArgs({"-n", "n[1-"})), "sinfo: error: Invalid node name list: n[1-\n");
  EXPECT_EQ(ErrorOf(ParseSinfoArgs({"gpu"})), "sinfo: unrecognized option 'gpu'" + Try("sinfo"));
  EXPECT_EQ(ParseSinfoArgs({"--usage", "-z"})->meta, "usage");
}

TEST(SinfoArgsTest, ListsEveryOptionOfItsTable) {
  ExpectEveryOptionIsListedAndFound(SinfoOptionTable(), [](const Args& a) { return StatusOf(ParseSinfoArgs(a)); });
}

// --------------------------------------------------------------------------------------------- scancel

TEST(ScancelArgsTest, ClustersPrefixesAndJobsAnywhere) {
  ScancelArgs r = *ParseScancelArgs({"12", "-bvs", "USR1", "13_[1-2],14", "--part=gpu", "--jobn", "x"}, 1000);
  ASSERT_EQ(r.tokens.size(), 3u);
  EXPECT_EQ(r.tokens[1].tasks, (std::vector<int>{1, 2}));
  EXPECT_TRUE(r.batch_only);
  EXPECT_TRUE(r.verbose);
  EXPECT_EQ(r.signal, SIGUSR1);
  EXPECT_EQ(r.partition, "gpu");
  EXPECT_EQ(r.name, "x");
  EXPECT_EQ(ParseScancelArgs({"-f", "5"}, 1000)->signal, SIGKILL);
  EXPECT_EQ(ParseScancelArgs({"--me"}, 1000)->user, "1000");
  EXPECT_EQ(ParseScancelArgs({"-tPD,R"}, 1000)->states, (std::set<JobState>{JobState::kPending, JobState::kRunning}));
}

TEST(ScancelArgsTest, ErrorsInSlurmWords) {
  EXPECT_EQ(ErrorOf(ParseScancelArgs({"--bogus", "5"}, 0)), "scancel: unrecognized option '--bogus'" + Try("scancel"));
  EXPECT_EQ(ErrorOf(ParseScancelArgs({"-bx", "5"}, 0)), "scancel: invalid option -- 'x'" + Try("scancel"));
  EXPECT_EQ(ErrorOf(ParseScancelArgs({"--si", "5"}, 0)),
            "scancel: option '--si' is ambiguous; possibilities: '--sibling' '--signal'" + Try("scancel"));
  EXPECT_EQ(ErrorOf(ParseScancelArgs({"-i", "5"}, 0)), "scancel: error: --interactive is not supported by Muster\n");
  EXPECT_EQ(ErrorOf(ParseScancelArgs({"-s", "NOPE", "5"}, 0)), "scancel: error: Invalid job signal: NOPE\n");
  EXPECT_EQ(ErrorOf(ParseScancelArgs({"x5"}, 0)), "scancel: error: Invalid job id x5\n");
  EXPECT_EQ(ErrorOf(ParseScancelArgs({"-v"}, 0)), "scancel: error: No job identification provided\n");
  EXPECT_EQ(ErrorOf(ParseScancelArgs({"-t", "CD"}, 0)),
            "scancel: error: Invalid job state specified: CD\n"
            "scancel: error: Valid job states are PENDING, RUNNING, and SUSPENDED\n");
  EXPECT_EQ(ParseScancelArgs({"-h"}, 0)->meta, "help");
}

TEST(ScancelArgsTest, ListsEveryOptionOfItsTable) {
  ExpectEveryOptionIsListedAndFound(ScancelOptionTable(),
                                    [](const Args& a) { return StatusOf(ParseScancelArgs(a, 1000)); });
}

// ----------------------------------------------------------------------------------------------- sprio

TEST(SprioArgsTest, ClustersPrefixesAndOperands) {
  SprioArgs r = *ParseSprioArgs({"-lnh", "--wei", "--use=a,b", "-j", "7,8", "-pgpu"});
  EXPECT_TRUE(r.opt.long_list);
  EXPECT_TRUE(r.opt.normalized);
  EXPECT_TRUE(r.opt.no_header);
  EXPECT_TRUE(r.opt.weights);
  EXPECT_TRUE(r.opt.show_user);
  EXPECT_EQ(r.users, (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(r.ids, (std::set<int64_t>{7, 8}));
  EXPECT_EQ(r.partitions, (std::set<std::string>{"gpu"}));
  EXPECT_EQ(ParseSprioArgs({"--jobs=9"})->ids, (std::set<int64_t>{9}));
}

TEST(SprioArgsTest, ErrorsInSlurmWords) {
  EXPECT_EQ(ErrorOf(ParseSprioArgs({"--bogus"})), "sprio: unrecognized option '--bogus'" + Try("sprio"));
  EXPECT_EQ(ErrorOf(ParseSprioArgs({"-lx"})), "sprio: invalid option -- 'x'" + Try("sprio"));
  EXPECT_EQ(ErrorOf(ParseSprioArgs({"--u", "a"})),
            "sprio: option '--u' is ambiguous; possibilities: '--user' '--usage'" + Try("sprio"));
  EXPECT_EQ(ErrorOf(ParseSprioArgs({"-o", "%i %z"})), "sprio: error: Invalid job format specification: z\n");
  EXPECT_EQ(ErrorOf(ParseSprioArgs({"-S", "y"})), "sprio: error: --sort is not supported by Muster\n");
  EXPECT_EQ(ParseSprioArgs({"-o", "%.15i %Y", "-v"})->opt.format, "%.15i %Y");
  EXPECT_EQ(ErrorOf(ParseSprioArgs({"-j", "x"})), "sprio: error: Invalid job id: x\n");
  EXPECT_EQ(ErrorOf(ParseSprioArgs({"7"})), "sprio: error: Unrecognized option: 7\n" + SprioUsage());
  EXPECT_EQ(ParseSprioArgs({"--help"})->meta, "help");
}

TEST(SprioArgsTest, ListsEveryOptionOfItsTable) {
  ExpectEveryOptionIsListedAndFound(SprioOptionTable(), [](const Args& a) { return StatusOf(ParseSprioArgs(a)); });
}

// ---------------------------------------------------------------------------------------------- sshare

TEST(SshareArgsTest, ClustersAndPrefixes) {
  SshareArgs r = *ParseSshareArgs({"-alhP", "--acc=ml,cv", "--users", "a"});
  EXPECT_TRUE(r.all);
  EXPECT_TRUE(r.opt.long_list);
  EXPECT_TRUE(r.opt.no_header);  // -h is -n, as in Slurm
  EXPECT_TRUE(r.opt.parsable);
  EXPECT_EQ(r.accounts, (std::set<std::string>{"cv", "ml"}));
  EXPECT_EQ(r.users, (std::set<std::string>{"a"}));
  EXPECT_TRUE(ParseSshareArgs({"--nohead"})->opt.no_header);
}

TEST(SshareArgsTest, ErrorsInSlurmWords) {
  EXPECT_EQ(ErrorOf(ParseSshareArgs({"--bogus"})), "sshare: unrecognized option '--bogus'" + Try("sshare"));
  EXPECT_EQ(ErrorOf(ParseSshareArgs({"-az"})), "sshare: invalid option -- 'z'" + Try("sshare"));
  EXPECT_EQ(ErrorOf(ParseSshareArgs({"--pars"})),
            "sshare: option '--pars' is ambiguous; possibilities: '--parsable' '--parsable2'" + Try("sshare"));
  EXPECT_EQ(ErrorOf(ParseSshareArgs({"-m"})), "sshare: error: --partition is not supported by Muster\n");
  EXPECT_EQ(ErrorOf(ParseSshareArgs({"x"})), "sshare: unrecognized option 'x'" + Try("sshare"));
  EXPECT_EQ(ParseSshareArgs({"--usage"})->meta, "usage");
}

TEST(SshareArgsTest, ListsEveryOptionOfItsTable) {
  ExpectEveryOptionIsListedAndFound(SshareOptionTable(), [](const Args& a) { return StatusOf(ParseSshareArgs(a)); });
}

// -------------------------------------------------------------------------------------------- scontrol

TEST(ScontrolArgsTest, OptionsAmongTheWords) {
  ScontrolArgs r = *ParseScontrolArgs({"-oa", "show", "job", "12", "--js"});
  EXPECT_TRUE(r.one_liner);
  EXPECT_TRUE(r.json);
  EXPECT_EQ(r.words, (Args{"show", "job", "12"}));
  EXPECT_TRUE(ParseScontrolArgs({"--one", "ping"})->one_liner);
  EXPECT_EQ(ParseScontrolArgs({"update", "JobId=5", "--", "Comment=-x"})->words,
            (Args{"update", "JobId=5", "Comment=-x"}));
  EXPECT_EQ(ParseScontrolArgs({"-h"})->meta, "help");
  EXPECT_EQ(ParseScontrolArgs({"show", "--usage"})->meta, "usage");
}

TEST(ScontrolArgsTest, ErrorsInSlurmWords) {
  EXPECT_EQ(ErrorOf(ParseScontrolArgs({"--bogus", "ping"})), "scontrol: unrecognized option '--bogus'" + Try("scontrol"));
  EXPECT_EQ(ErrorOf(ParseScontrolArgs({"-oz", "ping"})), "scontrol: invalid option -- 'z'" + Try("scontrol"));
  EXPECT_EQ(ErrorOf(ParseScontrolArgs({"--h"})),
            "scontrol: option '--h' is ambiguous; possibilities: '--help' '--hide'" + Try("scontrol"));
  EXPECT_EQ(ErrorOf(ParseScontrolArgs({"-u", "5", "show", "job"})), "scontrol: error: --uid is not supported by Muster\n");
}

TEST(ScontrolArgsTest, DetailsAreAccepted) {
  ScontrolArgs r = *ParseScontrolArgs({"-d", "-o", "show", "jobs"});
  EXPECT_TRUE(r.details);
  EXPECT_TRUE(r.one_liner);
  EXPECT_EQ(r.words, (Args{"show", "jobs"}));
  EXPECT_TRUE(ParseScontrolArgs({"show", "job", "--details"})->details);
}

// The commands that need no controller, and the refused ones (which are refused before any).
TEST(ScontrolCommandsTest, AnsweredOrRefusedByTheTable) {
  const auto run = [](const Args& a, std::string* out, std::string* err) {
    std::ostringstream o, e;
    const int rc = ScontrolMain(a, o, e);
    *out = o.str();
    *err = e.str();
    return rc;
  };
  std::string out, err;
  EXPECT_EQ(run({"version"}, &out, &err), 0);
  EXPECT_EQ(out, "muster 0.1.0 (scontrol)\n");
  EXPECT_EQ(run({"show", "hostlist", "n3,n1,n2,gpu01,gpu02,x"}, &out, &err), 0);
  EXPECT_EQ(out, "n[3,1-2],gpu[01-02],x\n");
  EXPECT_EQ(run({"show", "hostlistsorted", "n3,n1,n2"}, &out, &err), 0);
  EXPECT_EQ(out, "n[1-3]\n");
  EXPECT_EQ(run({"-d", "show", "hostnames", "n[1-2]"}, &out, &err), 0);
  EXPECT_EQ(out, "n1\nn2\n");
  EXPECT_EQ(run({"show", "reservation"}, &out, &err), 1);
  EXPECT_EQ(err, "scontrol: error: show reservation is not supported by Muster: Muster has no reservations\n");
  EXPECT_EQ(run({"Suspend", "12"}, &out, &err), 1);
  EXPECT_NE(err.find("suspend is not supported by Muster"), std::string::npos);
  EXPECT_EQ(run({"nosuch"}, &out, &err), 1);
  EXPECT_EQ(err, "scontrol: error: Invalid keyword: nosuch\n");
  EXPECT_EQ(run({"quiet"}, &out, &err), 0);
  EXPECT_EQ(out + err, "");
}

TEST(ScontrolArgsTest, ListsEveryOptionOfItsTable) {
  ExpectEveryOptionIsListedAndFound(ScontrolOptionTable(),
                                    [](const Args& a) { return StatusOf(ParseScontrolArgs(a)); });
}

// -------------------------------------------------------------------------------------------- sacctmgr

TEST(SacctmgrArgsTest, OptionsAmongTheWords) {
  SacctmgrArgs r = *ParseSacctmgrArgs({"-inP", "show", "qos"});
  EXPECT_FALSE(r.header);
  EXPECT_EQ(r.parsable, 1);
  EXPECT_EQ(r.words, (Args{"show", "qos"}));
  SacctmgrArgs s = *ParseSacctmgrArgs({"show", "assoc", "--nohead", "--parsable"});
  EXPECT_FALSE(s.header);
  EXPECT_EQ(s.parsable, 2);
  EXPECT_EQ(s.words, (Args{"show", "assoc"}));
  EXPECT_EQ(ParseSacctmgrArgs({"--usage"})->meta, "help");
}

TEST(SacctmgrArgsTest, ErrorsInSlurmWords) {
  EXPECT_EQ(ErrorOf(ParseSacctmgrArgs({"--bogus", "show", "qos"})),
            "sacctmgr: unrecognized option '--bogus'" + Try("sacctmgr"));
  EXPECT_EQ(ErrorOf(ParseSacctmgrArgs({"-nx"})), "sacctmgr: invalid option -- 'x'" + Try("sacctmgr"));
  EXPECT_EQ(ErrorOf(ParseSacctmgrArgs({"--p"})),
            "sacctmgr: option '--p' is ambiguous; possibilities: '--parsable' '--parsable2'" + Try("sacctmgr"));
  EXPECT_EQ(ErrorOf(ParseSacctmgrArgs({"-r", "show", "qos"})),
            "sacctmgr: error: --readonly is not supported by Muster\n");
}

TEST(SacctmgrArgsTest, ListsEveryOptionOfItsTable) {
  ExpectEveryOptionIsListedAndFound(SacctmgrOptionTable(),
                                    [](const Args& a) { return StatusOf(ParseSacctmgrArgs(a)); });
}

// ----------------------------------------------------------------------------------------------- sacct

TEST(SacctOptionTableTest, ListsEveryOptionOfItsTable) {
  ExpectEveryOptionIsListedAndFound(SacctOptionTable(),
                                    [](const Args& a) { return StatusOf(ParseSacctArgs(a, 1000, 0, "")); });
}

}  // namespace
}  // namespace muster
