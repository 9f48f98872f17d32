#include "model/option_engine.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace muster {
namespace {

using Args = std::vector<std::string>;
using Arg = OptionArg;
using Use = OptionUse;

constexpr OptionSpec kTable[] = {
    {"account", 'A', Arg::kRequired, Use::kOwn},
    {"cluster", 'M', Arg::kRequired, Use::kUnsupported, 0, "clusters"},
    {"clusters", 'M', Arg::kRequired, Use::kUnsupported},
    {"hold", 'H', Arg::kNone, Use::kOwn},
    {"job-name", 'J', Arg::kRequired, Use::kOwn},
    {"nice", 0, Arg::kOptional, Use::kOwn},
    {"no-kill", 'k', Arg::kOptional, Use::kIgnored},
    {"nodelist", 'w', Arg::kRequired, Use::kResource},
    {"nodes", 'N', Arg::kRequired, Use::kResource, 7, nullptr, "0 is refused"},
    {"help", 'h', Arg::kNone, Use::kMeta},
    {"", 't', Arg::kNone, Use::kOwn, 0, "hold", "a short option alone"},
};

constexpr GetoptStyle kStyle{.program = "prog"};
const std::string kTry = "\nTry \"prog --help\" for more information";

// The options read, as "name" or "name=value", and the first operand's index.
std::string Read(const Args& args) {
  StatusOr<ParsedOptions> p = Getopt(kTable, args, kStyle);
  if (!p.ok()) return "error: " + p.status().message();
  std::string out;
  for (const OptionOccurrence& o : p->options) {
    out += std::string(o.spec->name) + (o.value ? "=" + *o.value : "") + " ";
  }
  return out + "| " + std::to_string(p->first_operand);
}

std::string ErrorOf(const Args& args, const GetoptStyle& style = kStyle) {
  StatusOr<ParsedOptions> p = Getopt(kTable, args, style);
  EXPECT_FALSE(p.ok());
  if (p.ok()) return "";
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  return p.status().message();
}

TEST(OptionEngineTest, LongOptionsAndUniquePrefixes) {
  EXPECT_EQ(Read({"--account=a", "--job-name", "x"}), "account=a job-name=x | 3");
  EXPECT_EQ(Read({"--acc", "a"}), "account=a | 2");
  EXPECT_EQ(Read({"--nodes=2"}), "nodes=2 | 1");  // exact name, though "nodelist" shares the prefix
  EXPECT_EQ(Read({"--ho"}), "hold | 1");
  EXPECT_EQ(Read({"--job-name", "-N"}), "job-name=-N | 2");  // a required value whatever it looks like
  EXPECT_EQ(Read({"--job-name="}), "job-name= | 1");
}

TEST(OptionEngineTest, Ambiguity) {
  EXPECT_EQ(ErrorOf({"--nod", "2"}), "prog: option '--nod' is ambiguous; possibilities: '--nodelist' '--nodes'" + kTry);
  EXPECT_EQ(ErrorOf({"--no=1"}),
            "prog: option '--no' is ambiguous; possibilities: '--no-kill' '--nodelist' '--nodes'" + kTry);
  // Aliases of one option are not ambiguous: the first of them is taken.
  StatusOr<ParsedOptions> p = Getopt(kTable, {"--clus=c"}, kStyle);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_STREQ(p->options[0].spec->name, "cluster");
  EXPECT_EQ(p->options[0].CanonicalArg(), "--clusters=c");
  // glibc's form quotes the whole argument.
  const GetoptStyle whole{.ambiguity_quotes_argument = true};
  EXPECT_EQ(ErrorOf({"--nod=2"}, whole), "option '--nod=2' is ambiguous; possibilities: '--nodelist' '--nodes'");
}

TEST(OptionEngineTest, UnknownOptions) {
  EXPECT_EQ(ErrorOf({"--bogus"}), "prog: unrecognized option '--bogus'" + kTry);
  EXPECT_EQ(ErrorOf({"--bogus=1"}), "prog: unrecognized option '--bogus=1'" + kTry);
  EXPECT_EQ(ErrorOf({"--=1"}), "prog: unrecognized option '--=1'" + kTry);
  EXPECT_EQ(ErrorOf({"-Hz"}), "prog: invalid option -- 'z'" + kTry);
  const GetoptStyle cut{.end = "\n", .quote_limit = 5};
  EXPECT_EQ(ErrorOf({"--bogus-option"}, cut), "unrecognized option '--bog...'\n");
}

TEST(OptionEngineTest, ShortClusters) {
  EXPECT_EQ(Read({"-HJname", "script"}), "hold job-name=name | 1");
  EXPECT_EQ(Read({"-HJ", "name", "script", "-N", "2"}), "hold job-name=name | 2");
  EXPECT_EQ(Read({"-N2", "-HH"}), "nodes=2 hold hold | 2");
  EXPECT_EQ(Read({"-M", "c"}), "cluster=c | 2");  // the first option with that letter
}

TEST(OptionEngineTest, MissingAndUnwantedArguments) {
  EXPECT_EQ(ErrorOf({"--account"}), "prog: option '--account' requires an argument" + kTry);
  EXPECT_EQ(ErrorOf({"--acc"}), "prog: option '--account' requires an argument" + kTry);
  EXPECT_EQ(ErrorOf({"-H", "-J"}), "prog: option requires an argument -- 'J'" + kTry);
  EXPECT_EQ(ErrorOf({"--hold=yes"}), "prog: option '--hold' doesn't allow an argument" + kTry);
  EXPECT_EQ(ErrorOf({"--ho=yes"}), "prog: option '--hold' doesn't allow an argument" + kTry);
}

TEST(OptionEngineTest, OptionalArgumentsOnlyAttached) {
  EXPECT_EQ(Read({"--nice", "5"}), "nice | 1");
  EXPECT_EQ(Read({"--nice=5"}), "nice=5 | 1");
  EXPECT_EQ(Read({"-k", "1"}), "no-kill | 1");
  EXPECT_EQ(Read({"-k1"}), "no-kill=1 | 1");
  EXPECT_EQ(Read({"-Hk"}), "hold no-kill | 1");
}

TEST(OptionEngineTest, OperandsAndDoubleDash) {
  EXPECT_EQ(Read({}), "| 0");
  EXPECT_EQ(Read({"script", "-H"}), "| 0");
  EXPECT_EQ(Read({"-H", "script", "--hold"}), "hold | 1");
  EXPECT_EQ(Read({"-", "-H"}), "| 0");  // "-" alone is an operand
  EXPECT_EQ(Read({"-H", "--", "-N2"}), "hold | 2");  // "--" is consumed
  EXPECT_EQ(Read({"-H", "--"}), "hold | 2");
}

TEST(OptionEngineTest, EachSeesOptionsInOrderAndStopsAtItsError) {
  std::vector<std::string> seen;
  StatusOr<size_t> first = Getopt(kTable, {"-N", "x", "--bogus"}, kStyle, [&seen](const OptionOccurrence& o) {
    seen.push_back(o.spec->name);
    return o.value == "x" ? InvalidArgument("bad x") : Status::Ok();
  });
  EXPECT_EQ(first.status().message(), "bad x");  // before getopt reaches --bogus
  EXPECT_EQ(seen, std::vector<std::string>{"nodes"});
}

TEST(OptionEngineTest, MessagesEndAsTheStyleSays) {
  const GetoptStyle srun{.program = "srun", .end = "\n"};
  EXPECT_EQ(ErrorOf({"-z"}, srun), "srun: invalid option -- 'z'\nTry \"srun --help\" for more information\n");
  EXPECT_EQ(ErrorOf({"-z"}, GetoptStyle{}), "invalid option -- 'z'");
}

TEST(OptionEngineTest, AmbiguityListsTheFirstMatchAndWhatDiffersFromIt) {
  // glibc's getopt_long leaves out of the list the aliases of the first match (same argument kind
  // and meaning), though not those of a later one.
  constexpr OptionSpec table[] = {
      {"user", 'u', Arg::kRequired, Use::kOwn},
      {"users", 'u', Arg::kRequired, Use::kOwn, 0, "user"},
      {"usage", 0, Arg::kNone, Use::kMeta},
      {"usagex", 0, Arg::kNone, Use::kMeta, 0, "usage"},
  };
  EXPECT_EQ(Getopt(table, {"--us"}, kStyle).status().message(),
            "prog: option '--us' is ambiguous; possibilities: '--user' '--usage' '--usagex'" + kTry);
}

TEST(OptionEngineTest, ShortOptionsWithoutALongName) {
  EXPECT_EQ(Read({"-tH"}), " hold | 1");  // the short-only option's name is ""
  EXPECT_EQ(ErrorOf({"--=x"}), "prog: unrecognized option '--=x'" + kTry);  // "" is no long name
  const std::vector<OptionRow> rows = ListOptions(kTable);
  EXPECT_EQ(rows[10].name, "");
  EXPECT_EQ(rows[10].short_name, "-t");
  EXPECT_EQ(rows[10].alias_of, "--hold");
}

TEST(OptionEngineTest, PermutedOrderReadsOptionsAfterOperands) {
  const GetoptStyle permute{.program = "prog", .permute = true};
  StatusOr<ParsedOptions> p = Getopt(kTable, {"12", "-H", "13", "--acc", "a", "--", "-N", "14"}, permute);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->options.size(), 2u);
  EXPECT_EQ(std::string(p->options[0].spec->name), "hold");
  EXPECT_EQ(p->options[1].value, "a");
  EXPECT_EQ(p->operands, (Args{"12", "13", "-N", "14"}));
  EXPECT_EQ(p->first_operand, 8u);
  // An optional argument is still taken only when attached: the next word is an operand.
  p = Getopt(kTable, {"--nice", "5", "-k", "1"}, permute);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->operands, (Args{"5", "1"}));
  // Errors after an operand are reported; without "+" order the operand would have stopped getopt.
  EXPECT_FALSE(Getopt(kTable, {"12", "--bogus"}, permute).ok());
  EXPECT_EQ(Getopt(kTable, {"12", "--bogus"}, kStyle)->operands, (Args{"12", "--bogus"}));
}

TEST(OptionEngineTest, ListsTheTable) {
  const std::vector<OptionRow> rows = ListOptions(kTable);
  ASSERT_EQ(rows.size(), std::size(kTable));
  EXPECT_EQ(rows[0].name, "--account");
  EXPECT_EQ(rows[0].short_name, "-A");
  EXPECT_EQ(rows[0].argument, "required");
  EXPECT_EQ(rows[0].state, "own");
  EXPECT_EQ(rows[1].alias_of, "--clusters");
  EXPECT_EQ(rows[1].state, "unsupported");
  EXPECT_EQ(rows[5].short_name, "");
  EXPECT_EQ(rows[5].argument, "optional");
  EXPECT_EQ(rows[6].state, "ignored");
  EXPECT_EQ(rows[8].state, "resource");
  EXPECT_EQ(rows[8].note, "0 is refused");
  EXPECT_EQ(rows[9].state, "meta");
  EXPECT_EQ(rows[9].argument, "none");
}

}  // namespace
}  // namespace muster
