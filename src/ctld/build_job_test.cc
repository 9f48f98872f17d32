#include "ctld/build_job.h"

#include <gtest/gtest.h>

#include <string>

#include "model/field_limits.h"

namespace muster {
namespace {

struct Fixture {
  std::vector<Partition> partitions;
  AccountTree accounts;
  std::vector<Qos> qos;
  SubmitPolicy policy;
  Caller caller{true, 1000, 100, "unix", ""};
  Submitter who{"alice", "staff"};
  std::vector<std::string> probed;  // the partitions ever_runs was asked about

  Fixture() {
    Partition gpu;
    gpu.name = "gpu";
    gpu.is_default = true;
    gpu.default_time_s = 3600;
    gpu.def_mem_per_cpu_mb = 2048;
    Partition debug;
    debug.name = "debug";
    partitions = {gpu, debug};
    Account team;
    team.name = "team";
    team.max_wall_s = 7200;
    team.qos = {"normal"};
    accounts.accounts = {team, Account{.name = "other"}};
    accounts.users = {UserAssociation{.user = "alice", .account = "team"}};
    qos = {Qos{.name = "normal"}, Qos{.name = "high"}};
    policy = SubmitPolicy{.allow_root_jobs = false, .max_script_bytes = 1000, .accounts = &accounts, .qos = &qos};
  }

  JobSpec Request(std::vector<std::string> args = {"-N1"}) const {
    JobSpec r;
    EXPECT_TRUE(SetResourceOptions(r, std::move(args)).ok());
    r.script = "#!/bin/sh\ntrue\n";
    return r;
  }

  StatusOr<BuiltJob> Build(const JobSpec& r, std::string* user_msg = nullptr) {
    EverRuns ever = [this](const JobRequest& req, std::string* msg) -> Status {
      probed.push_back(req.partition);
      if (req.gpus_per_node > 8) {
        *msg = "GPUs: no node has that many";
        return InvalidArgument("Requested node configuration is not available");
      }
      return Status::Ok();
    };
    return BuildJob(r, caller, who, partitions, policy, /*now=*/1'700'000'000, ever, user_msg);
  }
};

TEST(BuildJobTest, APlainSubmissionTakesTheDefaults) {
  Fixture f;
  StatusOr<BuiltJob> b = f.Build(f.Request());
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const JobRecord& j = b->job;
  EXPECT_EQ(j.id, 0);  // the controller numbers it
  EXPECT_EQ(j.name, "sbatch");
  EXPECT_EQ(j.user, "alice");
  EXPECT_EQ(j.group, "staff");
  EXPECT_EQ(j.uid, 1000u);
  EXPECT_EQ(j.gid, 100u);
  EXPECT_EQ(j.partition, "gpu");
  EXPECT_EQ(j.request.partition, "gpu");
  EXPECT_EQ(j.account, "team");                // alice's default association
  EXPECT_EQ(j.request.mem_per_cpu_mb, 2048);   // the partition's DefMemPerCPU
  EXPECT_EQ(j.time_limit_s, 3600);             // the partition's DefaultTime
  EXPECT_EQ(j.workdir, "/");
  EXPECT_EQ(j.state, JobState::kPending);
  EXPECT_EQ(j.reason, "None");
  EXPECT_EQ(j.submit_time, 1'700'000'000);
  EXPECT_EQ(j.eligible_time, 1'700'000'000);
  EXPECT_EQ(j.submit_args, std::vector<std::string>{"-N1"});
  EXPECT_TRUE(b->array.tasks.empty());
  EXPECT_EQ(f.probed, std::vector<std::string>{"gpu"});
}

TEST(BuildJobTest, MaxWallHoldBeginAndArrays) {
  Fixture f;
  f.partitions[0].default_time_s = kUnlimited;
  JobSpec r = f.Request({"-p", "gpu"});
  r.hold = true;
  r.begin_time = 1'700'000'600;
  ASSERT_TRUE(SetArray(r, "1-4%2").ok());
  r.name = "train";
  StatusOr<BuiltJob> b = f.Build(r);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->job.name, "train");
  EXPECT_EQ(b->job.time_limit_s, 7200);  // no limit given or defaulted: the account's MaxWall
  EXPECT_EQ(b->job.request.time_limit_s, 7200);
  EXPECT_TRUE(b->job.held);
  EXPECT_EQ(b->job.reason, "JobHeldUser");
  EXPECT_EQ(b->job.begin_time, 1'700'000'600);
  EXPECT_EQ(b->job.eligible_time, 1'700'000'600);
  EXPECT_EQ(b->array.tasks, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(b->array.max_running, 2);
  EXPECT_EQ(b->job.array_max_running, 2);
  EXPECT_EQ(b->job.array_tasks, "1-4");
  r.begin_time = 5;  // in the past: now
  b = f.Build(r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->job.begin_time, 0);
  EXPECT_EQ(b->job.eligible_time, 1'700'000'000);
}

TEST(BuildJobTest, ErrorsAreSlurmsInSlurmsOrder) {
  struct Case {
    const char* what;
    std::function<void(Fixture&, JobSpec&)> change;
    StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"unauthenticated", [](Fixture& f, JobSpec&) { f.caller = Caller{false, 0, 0, "none", "no token"}; },
       StatusCode::kUnauthenticated, "authentication required: no token"},
      {"root", [](Fixture& f, JobSpec&) { f.caller.uid = 0; }, StatusCode::kPermissionDenied,
       "jobs may not run as root on this cluster (allow_root_jobs is off)"},
      {"bad resources", [](Fixture&, JobSpec& r) { r.resources.ntasks = -1; r.script.clear(); },
       StatusCode::kInvalidArgument, "invalid resources: ntasks -1"},
      {"empty script", [](Fixture&, JobSpec& r) { r.script.clear(); }, StatusCode::kInvalidArgument,
       "Batch script is empty!"},
      {"long script", [](Fixture&, JobSpec& r) { r.script.assign(1001, 'x'); }, StatusCode::kInvalidArgument,
       "Pathname of a file, directory or other parameter too long: the batch script is 1001 bytes, at most 1000"},
      {"interactive array", [](Fixture&, JobSpec& r) { r.interactive = true; r.array.tasks = {1, 2}; },
       StatusCode::kInvalidArgument, "an interactive allocation cannot be a job array"},
      {"typed array out of range", [](Fixture&, JobSpec& r) { r.array.tasks = {0, 1001}; },
       StatusCode::kInvalidArgument, "Invalid job array specification"},
      {"typed array not ascending", [](Fixture&, JobSpec& r) { r.array.tasks = {3, 2}; },
       StatusCode::kInvalidArgument, "Invalid job array specification"},
      {"bad partition",
       [](Fixture&, JobSpec& r) {
         EXPECT_TRUE(SetResourceOptions(r, {"-p", "nope"}).ok());
         r.account = "x";
       },
       StatusCode::kInvalidArgument, "Invalid partition name specified"},
      {"never runs",
       [](Fixture&, JobSpec& r) {
         EXPECT_TRUE(SetResourceOptions(r, {"--gres=gpu:9"}).ok());
         r.account = "other";
       },
       StatusCode::kInvalidArgument, "Requested node configuration is not available"},
      {"account", [](Fixture&, JobSpec& r) { r.account = "other"; }, StatusCode::kInvalidArgument,
       "Invalid account or account/partition combination specified"},
      {"unknown qos", [](Fixture&, JobSpec& r) { r.qos = "gold"; }, StatusCode::kInvalidArgument,
       "Invalid qos specification"},
      {"qos not allowed", [](Fixture&, JobSpec& r) { r.qos = "high"; }, StatusCode::kInvalidArgument,
       "Invalid qos specification"},
      {"negative nice", [](Fixture&, JobSpec& r) { r.nice = -5; }, StatusCode::kPermissionDenied,
       "Invalid nice value: only an administrator may lower it"},
      {"signal", [](Fixture&, JobSpec& r) { r.warn_signal = 65; }, StatusCode::kInvalidArgument,
       "Invalid --signal specification"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Fixture f;
    JobSpec r = f.Request();
    c.change(f, r);
    std::string user_msg;
    StatusOr<BuiltJob> b = f.Build(r, &user_msg);
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.status().code(), c.code) << b.status().ToString();
    if (!c.message.empty()) {
      EXPECT_EQ(b.status().message(), c.message);
    }
    if (std::string(c.what) == "never runs") {
      EXPECT_EQ(user_msg, "GPUs: no node has that many");
    }
  }
}

// Absurd inputs are refused before anything is parsed or stored, each named with its limit
// (Slurm's bounds, model/field_limits.h); values at the limit are taken.
TEST(BuildJobTest, EveryFreeTextFieldIsBounded) {
  struct Case {
    const char* field;
    std::function<void(JobSpec&, size_t)> set;
    size_t limit;
  };
  const std::vector<Case> cases = {
      {"job name (-J, --job-name)", [](JobSpec& r, size_t n) { r.name.assign(n, 'n'); }, 1024},
      {"job name (-J, --job-name)",
       [](JobSpec& r, size_t n) { EXPECT_TRUE(SetResourceOptions(r, {"-J", std::string(n, 'n')}).ok()); },
       1024},
      {"comment (--comment)", [](JobSpec& r, size_t n) { r.options.comment.assign(n, 'c'); }, 1024},
      {"wckey (--wckey)", [](JobSpec& r, size_t n) { r.options.wckey.assign(n, 'w'); }, 1024},
      {"working directory (-D, --chdir)", [](JobSpec& r, size_t n) { r.workdir = "/" + std::string(n - 1, 'd'); },
       4096},
      {"output file (-o, --output)", [](JobSpec& r, size_t n) { r.stdout_pattern = "/" + std::string(n - 1, 'o'); },
       4096},
      {"error file (-e, --error)", [](JobSpec& r, size_t n) { r.stderr_pattern = "/" + std::string(n - 1, 'e'); },
       4096},
      {"input file (-i, --input)", [](JobSpec& r, size_t n) { r.stdin_path = "/" + std::string(n - 1, 'i'); },
       4096},
      {"dependency (-d, --dependency)",
       [](JobSpec& r, size_t n) {  // "afterok:1:1:..." (or "afterok:10:1:...") of n bytes
         const bool even = (n - 8) % 2 == 0;
         r.dependency.items = {{DependencyType::kAfterOk, even ? 10 : 1}};
         for (size_t len = even ? 10 : 9; len < n; len += 2) r.dependency.items.push_back({DependencyType::kAfterOk, 1});
         ASSERT_EQ(DependencyText(r.dependency).size(), n);
       },
       128 * 1024},
      {"submit host", [](JobSpec& r, size_t n) { r.submit_host.assign(n, 'h'); }, 1024},
      {"the resource options",
       [](JobSpec& r, size_t n) { r.submit_args = {"--comment", std::string(n - 9, 'x')}; }, 1 << 20},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.field);
    Fixture f;
    JobSpec r = f.Request();
    c.set(r, c.limit + 1);
    StatusOr<BuiltJob> b = f.Build(r);
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(b.status().message(), "Pathname of a file, directory or other parameter too long: " + std::string(c.field) +
                                        " is " + std::to_string(c.limit + 1) + " bytes, at most " +
                                        std::to_string(c.limit));
    EXPECT_TRUE(f.probed.empty()) << "refused before the job was looked at";
  }
  // At the limit: taken (the ones that are no resource option also as the job keeps them).
  Fixture f;
  JobSpec r = f.Request();
  r.name.assign(1024, 'n');
  r.options.comment.assign(1024, 'c');
  r.workdir = "/" + std::string(4095, 'd');
  StatusOr<BuiltJob> b = f.Build(r);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->job.name.size(), 1024u);
  EXPECT_EQ(b->job.options.comment.size(), 1024u);
  EXPECT_EQ(b->job.workdir.size(), 4096u);
  // The environment and the script's arguments: each string, and all of them.
  r = f.Request();
  r.environment = {"PATH=/bin", "BIG=" + std::string(128 * 1024, 'x')};
  b = f.Build(r);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "Pathname of a file, directory or other parameter too long: environment variable BIG "
                                  "is 131076 bytes, at most 131072");
  r.environment.assign(20, "V=" + std::string(64 * 1024, 'x'));
  b = f.Build(r);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("the environment in all is"), std::string::npos) << b.status().message();
  r.environment.clear();
  r.script_args = {"a", std::string(128 * 1024 + 1, 'x')};
  b = f.Build(r);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("script argument 2 is 131073 bytes"), std::string::npos) << b.status().message();
}

// A time limit over a year (Slurm takes up to 68 years, which its squeue prints INVALID) is
// refused with the longest named; a year is taken, and UNLIMITED asks for none.
// A typed request is bounded as its options are: its text (names, lists) by the submit line's limit.
TEST(BuildJobTest, ATypedRequestsTextIsBoundedAsItsOptionsAre) {
  Fixture f;
  JobSpec r = f.Request();
  r.resources.constraint.assign(kMaxSubmitLineBytes + 1, 'c');
  EXPECT_EQ(f.Build(r).status().message(),
            "Pathname of a file, directory or other parameter too long: the resource options is " +
                std::to_string(kMaxSubmitLineBytes + 1) + " bytes, at most " + std::to_string(kMaxSubmitLineBytes));
}

TEST(BuildJobTest, TheLongestTimeLimitIsAYearALongerOneRefused) {
  Fixture f;
  StatusOr<BuiltJob> b = f.Build(f.Request({"-t", "365-00:00:00"}));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->job.time_limit_s, 365 * 86400);
  // The option is refused where it is read (the command, or the API edge for words), in -t's words.
  for (const char* t : {"365-00:00:01", "24855-03:14:07"}) {
    JobSpec r;
    const Status st = SetResourceOptions(r, {"-t", t});
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << t;
    EXPECT_NE(st.message().find("Invalid --time specification: " + std::string(t) + " is over a year (365-00:00:00)"),
              std::string::npos)
        << st.message();
  }
  JobSpec r;
  const Status st = SetResourceOptions(r, {"-t", "24855-03:14:08"});  // past INT32_MAX seconds: the parser's own words
  EXPECT_NE(st.message().find("is too large (at most 24855-03:14:07)"), std::string::npos) << st.message();
  // A typed request (POST /v1/jobs "resources") is held to the same year.
  JobSpec typed = f.Request();
  typed.resources.time_limit_s = 365 * 86400 + 1;
  b = f.Build(typed);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "invalid resources: time limit 31536001 s");
  b = f.Build(f.Request({"-t", "UNLIMITED"}));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
}

TEST(BuildJobTest, AdminsMayLowerNiceAndUseAnyQos) {
  Fixture f;
  f.policy.caller_is_admin = true;
  JobSpec r = f.Request();
  r.qos = "high";
  r.nice = -100;
  StatusOr<BuiltJob> b = f.Build(r);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->job.qos, "high");
  EXPECT_EQ(b->job.nice, -100);
}

// AllowGroups (any of the submitter's groups; admins pass), AllowAccounts (the account by name,
// as Slurm 22.05), DenyQos: Slurm's messages, groups first.
TEST(BuildJobTest, PartitionAccessListsWithSlurmsMessages) {
  Fixture f;
  f.partitions[1].access.allow_groups = {"gpu"};
  f.accounts.accounts.push_back(Account{.name = "lattice", .parent = "team"});
  f.accounts.users.push_back(UserAssociation{.user = "alice", .account = "lattice"});
  f.accounts.users.push_back(UserAssociation{.user = "alice", .account = "other"});
  JobSpec r = f.Request({"-N1", "-p", "debug"});
  StatusOr<BuiltJob> b = f.Build(r);
  EXPECT_EQ(b.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(b.status().message(), "User's group not permitted to use this partition");
  f.who.groups = {"staff", "gpu"};  // a supplementary group
  EXPECT_TRUE(f.Build(r).ok());
  f.who.groups = {"staff"};
  f.policy.caller_is_admin = true;
  EXPECT_TRUE(f.Build(r).ok());
  f.policy.caller_is_admin = false;
  f.who.group = "gpu";  // the primary group, even when the list misses it
  EXPECT_TRUE(f.Build(r).ok());

  f.partitions[1].access.allow_accounts = {"team"};
  r.account = "team";
  EXPECT_TRUE(f.Build(r).ok());
  r.account = "lattice";  // a child of team: not team itself
  b = f.Build(r);
  EXPECT_EQ(b.status().message(), "Invalid account or account/partition combination specified");
  r.account = "other";
  b = f.Build(r);
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(b.status().message(), "Invalid account or account/partition combination specified");

  f.partitions[1].access.allow_accounts.clear();
  f.partitions[1].access.deny_qos = {"normal"};
  b = f.Build(r);  // account other, no -q: normal
  EXPECT_EQ(b.status().message(), "Invalid qos specification");
  r.qos = "high";
  EXPECT_TRUE(f.Build(r).ok());
  EXPECT_TRUE(f.Build(f.Request()).ok());  // the default partition has no lists
}

}  // namespace
}  // namespace muster
