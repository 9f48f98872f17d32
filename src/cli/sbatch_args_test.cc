// sbatch's parse half: the captured outputs of shared/peers/slurm/captures/sbatch_*.txt (exact text
// and exit status), #SBATCH directives against the command line, getopt's behaviour, and Slurm's
// script checks.
#include "cli/sbatch_args.h"

#include <gtest/gtest.h>

#include <csignal>

#include <map>
#include <string>
#include <vector>

namespace muster {
namespace {

// A script reader over fixed files; "" is standard input. Counts its calls.
struct FakeFiles {
  std::map<std::string, std::string> files;
  int reads = 0;
  ScriptReader Reader() {
    return [this](const std::string& path) -> StatusOr<std::string> {
      ++reads;
      auto it = files.find(path);
      if (it == files.end()) return NotFound("no such file '" + path + "'");
      return it->second;
    };
  }
};

constexpr char kCwd[] = "/home/alice/proj";

StatusOr<SbatchRequest> Parse(const std::vector<std::string>& args, FakeFiles* files = nullptr) {
  FakeFiles none;
  return ParseSbatchArgs(args, kCwd, (files ? files : &none)->Reader());
}

// The stderr text and exit status sbatch prints for `args`.
CommandError Fail(const std::vector<std::string>& args, FakeFiles* files = nullptr) {
  StatusOr<SbatchRequest> r = Parse(args, files);
  EXPECT_FALSE(r.ok());
  if (r.ok()) return {};
  return SbatchError(r.status());
}

void ExpectFail(const std::vector<std::string>& args, int exit_code, const std::string& text,
                FakeFiles* files = nullptr) {
  const CommandError e = Fail(args, files);
  EXPECT_EQ(e.exit_code, exit_code);
  EXPECT_EQ(e.stderr_text, text);
}

// ---- The captures ----

TEST(SbatchArgsTest, CapturedOkWrap) {  // sbatch_ok.txt: sbatch --wrap 'true' -n1 -o /dev/null
  FakeFiles files;
  StatusOr<SbatchRequest> r = Parse({"--wrap", "true", "-n1", "-o", "/dev/null"}, &files);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(files.reads, 0);  // --wrap reads no script
  EXPECT_EQ(r->script, "#!/bin/sh\n# This script was created by sbatch --wrap.\n\ntrue\n");
  EXPECT_EQ(r->name, "wrap");
  EXPECT_EQ(r->request.name, "wrap");
  EXPECT_EQ(r->output, "/dev/null");
  EXPECT_EQ(r->resource_args, std::vector<std::string>({"--ntasks=1"}));
  EXPECT_EQ(r->request.ntasks, 1);
  EXPECT_EQ(r->workdir, kCwd);
  EXPECT_EQ(r->export_mode, "ALL");
  EXPECT_TRUE(r->requeue);
  EXPECT_FALSE(r->parsable);
  EXPECT_FALSE(r->hold);
  EXPECT_TRUE(r->script_path.empty());
}

TEST(SbatchArgsTest, WaitTestOnlyAndSignal) {
  StatusOr<SbatchRequest> r = Parse({"-W", "--test-only", "--signal=RB:SIGUSR2@90", "--wrap", "true"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->wait);
  EXPECT_TRUE(r->test_only);
  EXPECT_EQ(r->signal, SIGUSR2);
  EXPECT_EQ(r->signal_time_s, 90);
  EXPECT_TRUE(r->signal_batch_only);
  r = Parse({"--signal=10", "--wrap", "true"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->signal, 10);
  EXPECT_EQ(r->signal_time_s, 60) << "Slurm's default";
  EXPECT_FALSE(r->signal_batch_only);
}

TEST(SbatchArgsTest, CapturedParsable) {  // sbatch_parsable.txt
  StatusOr<SbatchRequest> r = Parse({"--parsable", "--wrap", "true", "-o", "/dev/null"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->parsable);
}

TEST(SbatchArgsTest, CapturedBadOption) {  // sbatch_bad_option.txt
  FakeFiles files;
  ExpectFail({"--bogus", "--wrap", "true"}, 255,
             "sbatch: unrecognized option '--bogus'\nTry \"sbatch --help\" for more information\n", &files);
  EXPECT_EQ(files.reads, 0);
}

TEST(SbatchArgsTest, CapturedEmptyScript) {  // sbatch_no_script.txt: sbatch < /dev/null
  FakeFiles files;
  files.files[""] = "";
  ExpectFail({}, 1, "sbatch: error: Batch script is empty!\n", &files);
}

TEST(SbatchArgsTest, CapturedBadTime) {  // sbatch_bad_time.txt
  ExpectFail({"--time=abc", "--wrap", "true"}, 255, "sbatch: error: Invalid --time specification\n");
}

TEST(SbatchArgsTest, CapturedBadGresName) {  // sbatch_bad_gres_name.txt
  ExpectFail({"--gres=tpu:1", "--wrap", "true"}, 1, "sbatch: error: Invalid generic resource (gres) specification\n");
}

TEST(SbatchArgsTest, NegativeTimeIsRejectedUnlikeSlurm) {  // sbatch_bad_time2.txt: Slurm submits it
  ExpectFail({"--time=-5", "--wrap", "true"}, 255, "sbatch: error: Invalid --time specification\n");
}

TEST(SbatchArgsTest, ResourceOptionsThatOnlyTheControllerRejects) {  // sbatch_too_*.txt parse fine
  for (const auto& args : std::vector<std::vector<std::string>>{{"-n", "100", "-N1", "--wrap", "true"},
                                                                {"--gres=gpu:9", "--wrap", "true"},
                                                                {"--gpus=40", "--wrap", "true"},
                                                                {"--mem=999999", "--wrap", "true"},
                                                                {"-p", "nosuch", "--wrap", "true"}}) {
    EXPECT_TRUE(Parse(args).ok()) << args[0];
  }
}

// ---- The script ----

TEST(SbatchArgsTest, NotABatchScript) {
  FakeFiles files;
  files.files["job.sh"] = "echo hello\n";
  ExpectFail({"job.sh"}, 1,
             "sbatch: error: This does not look like a batch script.  The first\n"
             "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
             "sbatch: error: For instance: #!/bin/sh\n",
             &files);
}

TEST(SbatchArgsTest, OtherScriptChecks) {
  FakeFiles files;
  files.files["blank.sh"] = "  \n\t\n";
  files.files["dos.sh"] = "#!/bin/sh\r\necho hi\r\n";
  files.files["nul.sh"] = std::string("#!/bin/sh\necho \0hi\n", 19);
  ExpectFail({"blank.sh"}, 1, "sbatch: error: Batch script contains only whitespace!\n", &files);
  ExpectFail({"dos.sh"}, 1,
             "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n"
             "sbatch: error: instead of expected UNIX line breaks (\\n).\n",
             &files);
  ExpectFail({"nul.sh"}, 1,
             "sbatch: error: The Slurm controller does not allow scripts that\n"
             "sbatch: error: contain a NULL character '\\0'.\n",
             &files);
  ExpectFail({"missing.sh"}, 1, "sbatch: error: Unable to open file missing.sh\n", &files);
}

TEST(SbatchArgsTest, ScriptFileArgumentsAndDefaultName) {
  FakeFiles files;
  files.files["dir/run.sh"] = "#!/bin/bash\necho $1\n";
  StatusOr<SbatchRequest> r = Parse({"-N1", "dir/run.sh", "-x", "--", "y"}, &files);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->script_path, "dir/run.sh");
  EXPECT_EQ(r->script_args, std::vector<std::string>({"-x", "--", "y"}));  // options end at the script
  EXPECT_EQ(r->name, "run.sh");
  EXPECT_EQ(r->script, "#!/bin/bash\necho $1\n");
  EXPECT_EQ(r->request.min_nodes, 1);
}

TEST(SbatchArgsTest, StandardInputIsNamedSbatch) {
  FakeFiles files;
  files.files[""] = "#!/bin/sh\ntrue\n";
  StatusOr<SbatchRequest> r = Parse({"-p", "gpu"}, &files);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->name, "sbatch");
  EXPECT_EQ(r->request.partition, "gpu");
}

TEST(SbatchArgsTest, DoubleDashEndsOptions) {
  FakeFiles files;
  files.files["-odd.sh"] = "#!/bin/sh\n";
  StatusOr<SbatchRequest> r = Parse({"--", "-odd.sh", "a"}, &files);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->script_path, "-odd.sh");
  EXPECT_EQ(r->script_args, std::vector<std::string>({"a"}));
}

TEST(SbatchArgsTest, WrapTakesNoScriptArguments) {
  ExpectFail({"--wrap", "true", "extra"}, 1, "sbatch: error: Script arguments not permitted with --wrap option\n");
}

// ---- Directives ----

constexpr char kScript[] =
    "#!/bin/bash\n"
    "#SBATCH -N 2\n"
    "#SBATCH --job-name=\"my job\"   # a comment after the words\n"
    "\n"
    "# an ordinary comment\n"
    "#SBATCH -t 10 --gres=gpu:4\n"
    "   #SBATCH --hold\n"  // not at the start of the line: a comment
    "#SBATCH --output=out_%j.txt --mem=4G\n"
    "#SBATCH --no-requeue\n"
    "echo start\n"
    "#SBATCH -p ignored\n";  // after the first command: not read

TEST(SbatchArgsTest, DirectivesUntilTheFirstCommand) {
  FakeFiles files;
  files.files["job.sh"] = kScript;
  StatusOr<SbatchRequest> r = Parse({"job.sh"}, &files);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->name, "my job");
  EXPECT_EQ(r->request.min_nodes, 2);
  EXPECT_EQ(r->request.time_limit_s, 600);
  EXPECT_EQ(r->request.gpus_per_node, 4);
  EXPECT_EQ(r->request.mem_per_node_mb, 4096);
  EXPECT_EQ(r->request.partition, "");
  EXPECT_EQ(r->output, "out_%j.txt");
  EXPECT_FALSE(r->hold);
  EXPECT_FALSE(r->requeue);
  EXPECT_EQ(r->resource_args,
            std::vector<std::string>({"--nodes=2", "--time=10", "--gres=gpu:4", "--mem=4G"}));
}

TEST(SbatchArgsTest, CommandLineOverridesDirectives) {
  FakeFiles files;
  files.files["job.sh"] = kScript;
  StatusOr<SbatchRequest> r =
      Parse({"-t", "20", "-J", "cli", "--requeue", "--mem-per-cpu=1G", "-o", "o.txt", "job.sh", "arg"}, &files);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->request.time_limit_s, 1200);
  EXPECT_EQ(r->name, "cli");
  EXPECT_EQ(r->request.name, "cli");
  EXPECT_TRUE(r->requeue);
  EXPECT_EQ(r->output, "o.txt");
  // A memory option on the command line replaces the script's --mem (no "mutually exclusive").
  EXPECT_EQ(r->request.mem_per_cpu_mb, 1024);
  EXPECT_EQ(r->request.mem_per_node_mb, 0);
  EXPECT_EQ(r->script_args, std::vector<std::string>({"arg"}));
  EXPECT_EQ(r->resource_args,
            std::vector<std::string>({"--nodes=2", "--time=10", "--gres=gpu:4", "--time=20", "--mem-per-cpu=1G"}));
}

TEST(SbatchArgsTest, DirectiveQuotingAndEscapes) {
  FakeFiles files;
  files.files["q.sh"] =
      "#!/bin/sh\n"
      "#SBATCH --comment='a b#c' -J x\\\"y --export=ALL,MSG=\"hi there\"\n";
  StatusOr<SbatchRequest> r = Parse({"q.sh"}, &files);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->options.comment, "a b#c");
  EXPECT_EQ(r->name, "x\"y");  // a backslash escapes a quote (not a blank: Slurm splits there)
  EXPECT_EQ(r->export_mode, "ALL,MSG=hi there");
}

TEST(SbatchArgsTest, InvalidDirective) {
  FakeFiles files;
  files.files["bad.sh"] = "#!/bin/sh\n#SBATCH -N 2 junk --hold\n";
  ExpectFail({"bad.sh"}, 255, "sbatch: error: Invalid directive found in batch script: junk\n", &files);
}

TEST(SbatchArgsTest, UnmatchedQuoteInDirective) {
  FakeFiles files;
  files.files["q.sh"] = "#!/bin/sh\n\n#SBATCH -J \"oops\n";
  ExpectFail({"q.sh"}, 1, "sbatch: fatal: q.sh: line 3: Unmatched `\"` in [#SBATCH -J \"oops]\n", &files);
}

TEST(SbatchArgsTest, BadValueInDirective) {
  FakeFiles files;
  files.files["t.sh"] = "#!/bin/sh\n#SBATCH --time=soon\n";
  ExpectFail({"t.sh"}, 255, "sbatch: error: Invalid --time specification\n", &files);
}

// ---- Options handled here ----

// --mail-type adds up over its occurrences; a type Slurm does not know fails as Slurm's sbatch
// fails (slurm_opt.c: "--mail-type=%s invalid", exit 255).
TEST(SbatchArgsTest, MailOptionsAreKept) {
  StatusOr<SbatchRequest> r =
      Parse({"--mail-type=BEGIN", "--mail-type", "end", "--mail-user=a@b.c", "--wrap=true"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->options.mail_type, kMailBegin | kMailEnd);
  EXPECT_EQ(r->options.mail_user, "a@b.c");
  EXPECT_TRUE(r->ignored_args.empty());
  ExpectFail({"--mail-type=sometimes", "--wrap", "true"}, 255, "sbatch: error: --mail-type=sometimes invalid\n");
}

TEST(SbatchArgsTest, OwnOptions) {
  StatusOr<SbatchRequest> r =
      Parse({"-A", "physics", "--export=NONE", "--comment", "note", "--wckey=proj", "-q", "high", "-H",
             "--no-requeue", "-i", "in.txt", "-e", "err_%j", "-D", "sub", "--wrap=hostname"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->account, "physics");
  EXPECT_EQ(r->export_mode, "NONE");
  EXPECT_EQ(r->options.comment, "note");
  EXPECT_EQ(r->options.wckey, "proj");
  EXPECT_TRUE(r->ignored_args.empty());
  EXPECT_EQ(r->qos, "high");
  EXPECT_TRUE(r->hold);
  EXPECT_FALSE(r->requeue);
  EXPECT_EQ(r->input, "in.txt");
  EXPECT_EQ(r->error, "err_%j");
  EXPECT_EQ(r->workdir, "/home/alice/proj/sub");
  EXPECT_EQ(r->script, WrapScript("hostname"));
  EXPECT_TRUE(r->resource_args.empty());
}

TEST(SbatchArgsTest, AbsoluteChdirAndLongForms) {
  StatusOr<SbatchRequest> r = Parse({"--chdir=/scratch", "--job-name", "j", "--output=o", "--error", "e",
                                     "--input=i", "--account=a", "--qos=q", "--hold", "--wrap", "true"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->workdir, "/scratch");
  EXPECT_EQ(r->name, "j");
  EXPECT_EQ(r->output, "o");
  EXPECT_EQ(r->error, "e");
  EXPECT_EQ(r->input, "i");
  EXPECT_EQ(r->account, "a");
  EXPECT_EQ(r->qos, "q");
  EXPECT_TRUE(r->hold);
}

TEST(SbatchArgsTest, NiceTakesAnOptionalAdjustment) {
  EXPECT_EQ(Parse({"--wrap", "true"})->nice, 0);
  EXPECT_EQ(Parse({"--nice", "--wrap", "true"})->nice, 100);  // the bare option: +100, as Slurm
  EXPECT_EQ(Parse({"--nice=-20", "--wrap", "true"})->nice, -20);
  EXPECT_EQ(Parse({"--nice=50", "--wrap", "true"})->nice, 50);
  StatusOr<SbatchRequest> bad = Parse({"--nice=lots", "--wrap", "true"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("Invalid --nice value: lots"), std::string::npos) << bad.status().message();
}

TEST(SbatchArgsTest, ShortOptionClustersAndPrefixes) {
  StatusOr<SbatchRequest> r = Parse({"-HJname", "-c4", "--part=gpu", "--nodes", "3", "--wrap", "true"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->hold);
  EXPECT_EQ(r->name, "name");
  EXPECT_EQ(r->request.cpus_per_task, 4);
  EXPECT_EQ(r->request.partition, "gpu");
  EXPECT_EQ(r->request.min_nodes, 3);
  EXPECT_EQ(r->resource_args, std::vector<std::string>({"--cpus-per-task=4", "--partition=gpu", "--nodes=3"}));
}

TEST(SbatchArgsTest, GetoptErrors) {
  const std::string tail = "Try \"sbatch --help\" for more information\n";
  ExpectFail({"--nod", "3", "--wrap", "true"}, 255,
             "sbatch: option '--nod' is ambiguous; possibilities: '--nodefile' '--nodelist' '--nodes'\n" + tail);
  ExpectFail({"--wrap"}, 255, "sbatch: option '--wrap' requires an argument\n" + tail);
  ExpectFail({"--wrap", "true", "-t"}, 255, "sbatch: option requires an argument -- 't'\n" + tail);
  ExpectFail({"-Z", "--wrap", "true"}, 255, "sbatch: invalid option -- 'Z'\n" + tail);
  ExpectFail({"--hold=yes", "--wrap", "true"}, 255, "sbatch: option '--hold' doesn't allow an argument\n" + tail);
  ExpectFail({"--mem-per=1G", "--wrap", "true"}, 255,
             "sbatch: option '--mem-per' is ambiguous; possibilities: '--mem-per-cpu' '--mem-per-gpu'\n" + tail);
  ExpectFail({"--bogus=1", "--wrap", "true"}, 255, "sbatch: unrecognized option '--bogus=1'\n" + tail);
}

TEST(SbatchArgsTest, AliasesAreNotAmbiguous) {  // --cluster/--clusters mean the same option
  ExpectFail({"--cluster=c", "--wrap", "true"}, 1, "sbatch: error: --clusters is not supported by Muster\n");
}

TEST(SbatchArgsTest, ValueErrorsInSlurmWords) {
  ExpectFail({"-n", "abc", "--wrap", "true"}, 1, "sbatch: error: Invalid numeric value \"abc\" for --ntasks.\n");
  ExpectFail({"-c", "0", "--wrap", "true"}, 1, "sbatch: error: Invalid numeric value \"0\" for --cpus-per-task.\n");
  ExpectFail({"--mem=lots", "--wrap", "true"}, 255, "sbatch: error: Invalid --mem specification\n");
  ExpectFail({"--mem-per-cpu=x", "--wrap", "true"}, 255, "sbatch: error: Invalid --mem-per-cpu specification\n");
  ExpectFail({"--gpus=a100:x", "--wrap", "true"}, 1, "sbatch: error: Invalid generic resource (gres) specification\n");
  // Slurm takes --mem=0 (all of the node's memory); Muster says why it does not.
  ExpectFail({"--mem=0", "--wrap", "true"}, 255,
             "sbatch: error: --mem: 0 (all of a node's memory) is not supported; give a size, or use --exclusive\n");
}

TEST(SbatchArgsTest, CombinationErrorsExitOne) {
  ExpectFail({"--mem=1G", "--mem-per-cpu=1G", "--wrap", "true"}, 1,
             "sbatch: error: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive\n");
}

TEST(SbatchArgsTest, UnsupportedAndIgnoredOptions) {
  ExpectFail({"--bb=x", "--wrap", "true"}, 1, "sbatch: error: --bb is not supported by Muster\n");
  ExpectFail({"--signal=USR1@x", "--wrap", "true"}, 255, "sbatch: error: Invalid --signal specification\n");
  ExpectFail({"--signal=B:FOO@60", "--wrap", "true"}, 255, "sbatch: error: Invalid --signal specification\n");
  ExpectFail({"--signal=X:USR1", "--wrap", "true"}, 255, "sbatch: error: Invalid --signal specification\n");
  StatusOr<SbatchRequest> r = Parse({"-v", "--ignore-pbs", "-Q", "--wrap", "true"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->ignored_args, std::vector<std::string>({"--verbose", "--ignore-pbs", "--quiet"}));
}

TEST(SbatchArgsTest, HelpUsageVersionStopEarly) {
  FakeFiles files;
  StatusOr<SbatchRequest> r = Parse({"--bogus-later-is-fine?", "-h"}, &files);
  EXPECT_FALSE(r.ok());  // getopt reports the unknown option first, as Slurm does
  r = Parse({"-h", "--bogus"}, &files);
  EXPECT_FALSE(r.ok());  // the whole command line is scanned first
  r = Parse({"--help", "whatever.sh"}, &files);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->help);
  r = Parse({"--usage"}, &files);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->usage);
  r = Parse({"-V"}, &files);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->version);
  EXPECT_EQ(files.reads, 0);
  EXPECT_EQ(SbatchUsage().rfind("Usage: sbatch [-N nnodes] [-n ntasks]\n              [-c ncpus] [-r n]", 0), 0u)
      << "Slurm's --usage";
  EXPECT_EQ(SbatchHelp().rfind("Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n", 0), 0u);
}

TEST(SbatchArgsTest, ExclusiveTakesOnlyAnAttachedValue) {
  FakeFiles files;
  files.files["user"] = "#!/bin/sh\n";
  StatusOr<SbatchRequest> r = Parse({"--exclusive", "user"}, &files);  // "user" is the script
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->request.exclusive);
  EXPECT_EQ(r->script_path, "user");
  ExpectFail({"--exclusive=user", "--wrap", "true"}, 255,
             "sbatch: error: --exclusive: 'user' is not supported (only plain --exclusive: whole nodes)\n");
}

TEST(SbatchArgsTest, DependencyAndBeginAreKeptAsGiven) {
  StatusOr<SbatchRequest> r = Parse({"-d", "afterok:1:2", "--begin=now+1hour", "--wrap", "true"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->dependency, "afterok:1:2");
  EXPECT_EQ(r->begin, "now+1hour");
  r = Parse({"--array=0-6:2%2", "--wrap", "true"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->array, "0-6:2%2");
}

TEST(SbatchArgsTest, InputEnvironmentVariablesBecomeOptions) {
  std::map<std::string, std::string> env = {{"SBATCH_JOB_NAME", "envname"}, {"SBATCH_TIMELIMIT", "7"},
                                            {"SBATCH_EXCLUSIVE", ""}, {"SBATCH_PARTITION", ""}, {"HOME", "/x"}};
  auto get = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  const std::vector<std::string> args = SbatchEnvironmentArgs(get);
  EXPECT_EQ(args, (std::vector<std::string>{"--exclusive", "--job-name=envname", "--time=7"}));
  // Before the command line: a directive loses to them, the command line wins over them.
  FakeFiles files;
  files.files["job.sh"] = "#!/bin/sh\n#SBATCH -J fromscript -t 3\ntrue\n";
  std::vector<std::string> all = args;
  all.insert(all.end(), {"-t", "9", "job.sh"});
  StatusOr<SbatchRequest> r = Parse(all, &files);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->name, "envname");
  EXPECT_EQ(r->request.time_limit_s, 9 * 60);
}

TEST(SbatchArgsTest, ListsEveryOptionOfItsTable) {
  const OptionTable table = SbatchOptionTable();
  const std::vector<OptionRow> rows = ListOptions(table);
  ASSERT_EQ(rows.size(), table.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].name, "--" + std::string(table[i].name));
    // Each option is found by its full name, as the listing names it.
    StatusOr<size_t> first = SbatchFirstOperand({rows[i].name + (table[i].arg == OptionArg::kNone ? "" : "=v")});
    EXPECT_TRUE(first.ok()) << rows[i].name << ": " << first.status().message();
  }
  std::map<std::string, OptionRow> by_name;
  for (const OptionRow& row : rows) by_name[row.name] = row;
  EXPECT_EQ(by_name["--account"].short_name, "-A");
  EXPECT_EQ(by_name["--account"].state, "own");
  EXPECT_EQ(by_name["--nodes"].state, "resource");
  EXPECT_EQ(by_name["--bb"].state, "unsupported");
  EXPECT_EQ(by_name["--verbose"].state, "ignored");
  EXPECT_EQ(by_name["--help"].state, "meta");
  EXPECT_EQ(by_name["--cluster"].alias_of, "--clusters");
  EXPECT_EQ(by_name["--nice"].argument, "optional");
  EXPECT_FALSE(by_name["--gpu-fraction"].note.empty());
}

TEST(SbatchArgsTest, HetjobDirectivesMakeComponents) {
  FakeFiles f;
  f.files["het.sh"] =
      "#!/bin/bash\n#SBATCH -J pair -n1 --gres=gpu:1 -A ml\n#SBATCH hetjob\n#SBATCH -N2 --gres=gpu:2 -q high\n"
      "#SBATCH packjob\n#SBATCH -n4\nsrun hostname\n";
  StatusOr<SbatchRequest> r = Parse({"het.sh"}, &f);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->name, "pair");
  EXPECT_EQ(r->resource_args, (std::vector<std::string>{"--ntasks=1", "--gres=gpu:1"}));
  ASSERT_EQ(r->het_components.size(), 2u);
  EXPECT_EQ(r->het_components[0].submit_args, (std::vector<std::string>{"--nodes=2", "--gres=gpu:2"}));
  // The account passes on to later components; the QOS given to the second one too.
  EXPECT_EQ(r->het_components[0].account, "ml");
  EXPECT_EQ(r->het_components[0].qos, "high");
  EXPECT_EQ(r->het_components[1].submit_args, (std::vector<std::string>{"--ntasks=4"}));
  EXPECT_EQ(r->het_components[1].qos, "high");
  EXPECT_EQ(r->qos, "");  // the leader's own
}

TEST(SbatchArgsTest, ColonsSeparateTheCommandLinesComponents) {
  FakeFiles f;
  f.files["job.sh"] = "#!/bin/sh\nhostname\n";
  StatusOr<SbatchRequest> r = Parse({"-n1", "-o", "o.txt", ":", "-N2", "--gres=gpu:1", "job.sh", "a", ":"}, &f);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->resource_args, (std::vector<std::string>{"--ntasks=1"}));
  EXPECT_EQ(r->output, "o.txt");
  EXPECT_EQ(r->script_path, "job.sh");
  EXPECT_EQ(r->script_args, (std::vector<std::string>{"a", ":"}));  // after the script: its arguments
  ASSERT_EQ(r->het_components.size(), 1u);
  EXPECT_EQ(r->het_components[0].submit_args, (std::vector<std::string>{"--nodes=2", "--gres=gpu:1"}));
  // --wrap in a later component's place is the job's.
  StatusOr<SbatchRequest> w = Parse({"-n1", ":", "-n2", "--wrap=sleep 1"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_NE(w->script.find("sleep 1"), std::string::npos);
  ASSERT_EQ(w->het_components.size(), 1u);
  EXPECT_EQ(w->het_components[0].submit_args, (std::vector<std::string>{"--ntasks=2"}));
  // A bad value in a component names the option, as in the first.
  CommandError bad = Fail({"-n1", ":", "--time=soon", "--wrap=true"});
  EXPECT_EQ(bad.stderr_text, "sbatch: error: Invalid --time specification\n");
}

}  // namespace
}  // namespace muster
