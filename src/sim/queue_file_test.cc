// Queue files: a valid file loads into the expected jobs; each kind of mistake gives one clear
// error naming the line and the field; mangled files never crash.
#include "sim/queue_file.h"

#include <gtest/gtest.h>

#include "config/text_edit_test_util.h"

#include <filesystem>
#include <random>

namespace muster {
namespace {

using test::Edit;
using test::ErrorCase;

constexpr const char* kQueue = R"(jobs:
  - {id: 1, name: a, user: u, account: acct, priority: 5, submit_time: 7, options: "-N 2 --gres=gpu:8 -t 1:00:00"}
  - {id: 2, options: ["--gres=gpu:1", "-C", "a|b"]}
  - {id: 3, options: "-J 'my job' --constraint=\"ib|v100\" -p debug"}
)";

TEST(QueueFile, LoadsJobs) {
  StatusOr<std::vector<PendingJob>> q = LoadQueueYaml(kQueue, "q.yaml");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  ASSERT_EQ(q->size(), 3u);
  const PendingJob& a = (*q)[0];
  EXPECT_EQ(a.id, 1);
  EXPECT_EQ(a.request.name, "a");
  EXPECT_EQ(a.user, "u");
  EXPECT_EQ(a.account, "acct");
  EXPECT_EQ(a.priority, 5);
  EXPECT_EQ(a.submit_time, 7);
  EXPECT_EQ(a.request.min_nodes, 2);
  EXPECT_EQ(a.request.gpus_per_node, 8);
  EXPECT_EQ(a.request.time_limit_s, 3600);
  EXPECT_EQ((*q)[1].request.constraint, "a|b");
  EXPECT_EQ((*q)[2].request.name, "my job");
  EXPECT_EQ((*q)[2].request.constraint, "ib|v100");
  EXPECT_EQ((*q)[2].request.partition, "debug");
  EXPECT_TRUE(LoadQueueYaml("jobs: []").ok());
}

TEST(QueueFile, Errors) {
  const ErrorCase cases[] = {
      {"id: 2", "id: 1", "q.yaml:3: jobs[1].id: job id 1 is already used by jobs[0]"},
      {"id: 2, ", "", "q.yaml:3: jobs[1]: missing required field 'id'"},
      {"id: 3", "id: 0", "q.yaml:4: jobs[2].id: '0' is out of range (expected an integer at least 1)"},
      {"user: u", "usr: u",
       "q.yaml:2: jobs[0]: unknown field 'usr' (known: id, name, user, account, priority, submit_time, options)"},
      {"priority: 5", "priority: high", "q.yaml:2: jobs[0].priority: expected an integer, got 'high'"},
      {"'my job'", "'my job", "q.yaml:4: jobs[2].options: unterminated ' quote at column 4"},
      {"id: 3, options: \"-J", "id: 3, name: other, options: \"-J",
       "q.yaml:4: jobs[2].name: 'other' differs from the -J/--job-name option 'my job'"},
      {"[\"--gres=gpu:1\"", "[[\"--gres=gpu:1\"]",
       "q.yaml:3: jobs[1].options[0]: expected a name, got a list"},
  };
  for (const ErrorCase& c : cases) {
    StatusOr<std::vector<PendingJob>> r = LoadQueueYaml(Edit(kQueue, c.from, c.to), "q.yaml");
    ASSERT_FALSE(r.ok()) << "'" << c.from << "' -> '" << c.to << "' loaded";
    EXPECT_EQ(r.status().message(), c.error) << "'" << c.from << "' -> '" << c.to << "'";
  }
  // ParseJobRequest's message, with the place of the option string.
  StatusOr<std::vector<PendingJob>> r = LoadQueueYaml(Edit(kQueue, "-t 1:00:00", "-t soon"), "q.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("q.yaml:2: jobs[0].options: --time: invalid time specification 'soon'", 0),
            0u)
      << r.status().message();

  const std::pair<const char*, const char*> docs[] = {
      {"", "q.yaml: the queue file is empty (expected jobs: [...])"},
      {"jobs: 3", "q.yaml:1: jobs: expected a list, got '3'"},
      {"jobs:\n  - 3\n", "q.yaml:2: jobs[0]: expected a map (key: value), got '3'"},
      {"job: []", "q.yaml:1: unknown field 'job' (known: jobs)"},
  };
  for (const auto& [text, error] : docs) {
    StatusOr<std::vector<PendingJob>> d = LoadQueueYaml(text, "q.yaml");
    ASSERT_FALSE(d.ok()) << text;
    EXPECT_EQ(d.status().message(), error) << text;
  }
}

TEST(QueueFile, MangledFilesNeverCrash) {
  const std::string base = kQueue;
  std::mt19937 rng(777);
  const std::string alphabet = ":-[]{},\"'|# \n0123456789=";
  for (int k = 0; k < 300; ++k) {
    std::string s = k < 60 ? base.substr(0, base.size() * k / 60) : base;
    if (k >= 60) {
      for (int e = 0; e < 3; ++e) {
        const size_t at = rng() % s.size();
        if (rng() % 2) {
          s[at] = alphabet[rng() % alphabet.size()];
        } else {
          s.erase(at, 1 + rng() % 3);
        }
        if (s.empty()) s = "x";
      }
    }
    StatusOr<std::vector<PendingJob>> r = LoadQueueYaml(s, "q.yaml");
    if (!r.ok()) {
      EXPECT_EQ(r.status().message().rfind("q.yaml", 0), 0u) << r.status().message();
    }
  }
}

TEST(SplitShellWords, QuotesAndBlanks) {
  using V = std::vector<std::string>;
  EXPECT_EQ(*SplitShellWords(""), V{});
  EXPECT_EQ(*SplitShellWords("  -N 2\t--gres=gpu:8\n"), (V{"-N", "2", "--gres=gpu:8"}));
  EXPECT_EQ(*SplitShellWords("-J 'a b' -C \"x|y\""), (V{"-J", "a b", "-C", "x|y"}));
  EXPECT_EQ(*SplitShellWords("--constraint=\"a&b\"c"), (V{"--constraint=a&bc"}));
  EXPECT_EQ(*SplitShellWords("'' \"\""), (V{"", ""}));
  EXPECT_EQ(*SplitShellWords(R"("a\"b\\c" 'd\e')"), (V{"a\"b\\c", "d\\e"}));
  EXPECT_FALSE(SplitShellWords("-J 'oops").ok());
  EXPECT_EQ(SplitShellWords("a \"b").status().message(), "unterminated \" quote at column 3");
}

TEST(QueueFile, ADirectoryIsNoQueueFile) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "muster_queue_file_test";
  std::filesystem::create_directories(dir);
  EXPECT_FALSE(LoadQueueFile(dir.string()).ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace muster
