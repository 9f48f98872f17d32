#include "cli/command_args.h"

#include <unistd.h>

#include <csignal>
#include <cstring>

#include <algorithm>
#include <map>

#include "proc/launcher.h"
#include "model/job_array.h"

extern char** environ;

namespace muster {

std::string OptionName(const OptionSpec& spec) {
  if (*spec.name == '\0' && spec.canonical == nullptr) return std::string("-") + spec.short_name;
  return "--" + spec.Canonical();
}

Status RefuseOperands(const char* cmd, const CommandLine& line) {
  if (line.operands.empty()) return Status::Ok();
  return InvalidArgument(std::string(cmd) + ": unrecognized option '" + line.operands[0] + "'\nTry \"" + cmd +
                         " --help\" for more information\n");
}

StatusOr<CommandLine> ReadCommandLine(OptionTable table, const std::vector<std::string>& args,
                                      const GetoptStyle& style,
                                      const std::function<Status(const OptionOccurrence&)>& apply) {
  CommandLine line;
  std::vector<std::string> operands;
  StatusOr<size_t> first = Getopt(
      table, args, style,
      [&](const OptionOccurrence& o) -> Status {
        switch (o.spec->use) {
          case OptionUse::kMeta:
            line.meta = o.spec->Canonical();
            return Status(StatusCode::kOutOfRange, "");  // stops the reading; not an error
          case OptionUse::kUnsupported: {
            const std::string what = OptionName(*o.spec) + " is not supported by Muster";
            if (style.program.empty()) return InvalidArgument(what);
            return InvalidArgument(std::string(style.program) + ": error: " + what + std::string(style.end));
          }
          case OptionUse::kIgnored:
            return Status::Ok();
          case OptionUse::kOwn:
          case OptionUse::kResource:
          case OptionUse::kJob:
            return apply(o);
        }
        return Status::Ok();
      },
      &operands);
  if (!line.meta.empty()) return line;
  if (!first.ok()) return first.status();
  if (!style.permute) operands.assign(args.begin() + static_cast<std::ptrdiff_t>(*first), args.end());
  line.operands = std::move(operands);
  return line;
}

StatusOr<JobToken> ParseJobToken(const std::string& text) {
  JobToken t;
  t.text = text;
  // "12+1": component 1 of heterogeneous job 12, whose id is 13 (components are numbered in
  // order from their leader's).
  if (const size_t plus = text.find('+'); plus != std::string::npos) {
    const std::string leader = text.substr(0, plus), offset = text.substr(plus + 1);
    for (const std::string* part : {&leader, &offset}) {
      if (part->empty() || part->size() > 15 || part->find_first_not_of("0123456789") != std::string::npos) {
        return InvalidArgument("Invalid job id " + text);
      }
    }
    t.id = std::stoll(leader) + std::stoll(offset);
    return t;
  }
  const size_t us = text.find('_');
  const std::string id = text.substr(0, us);
  if (id.empty() || id.size() > 15 || id.find_first_not_of("0123456789") != std::string::npos) {
    return InvalidArgument("Invalid job id " + text);
  }
  t.id = std::stoll(id);
  if (us == std::string::npos) return t;
  std::string tasks = text.substr(us + 1);
  if (tasks.size() >= 2 && tasks.front() == '[' && tasks.back() == ']') tasks = tasks.substr(1, tasks.size() - 2);
  StatusOr<ArraySpec> spec = ParseArraySpec(tasks);
  if (!spec.ok() || spec->max_running > 0) return InvalidArgument("Invalid job id " + text);
  t.tasks = spec->tasks;
  return t;
}

std::vector<std::string> ExportedEnvironment(const std::string& mode, const std::vector<std::string>& env) {
  const auto name_of = [](const std::string& kv) { return kv.substr(0, kv.find('=')); };
  if (mode.empty() || mode == "ALL") return env;
  std::vector<std::string> items = Split(mode, ',');
  const bool all = std::find(items.begin(), items.end(), "ALL") != items.end();
  std::vector<std::string> out;
  std::map<std::string, size_t> where;  // name -> index in out
  const auto put = [&](const std::string& kv) {
    auto [it, fresh] = where.emplace(name_of(kv), out.size());
    if (fresh) {
      out.push_back(kv);
    } else {
      out[it->second] = kv;
    }
  };
  for (const std::string& kv : env) {
    if (all || kv.rfind("SLURM_", 0) == 0) put(kv);
  }
  if (mode == "NONE" || mode == "NIL") return out;
  for (const std::string& item : items) {
    if (item.empty() || item == "ALL" || item == "NONE" || item == "NIL") continue;
    if (item.find('=') != std::string::npos) {
      put(item);
      continue;
    }
    for (const std::string& kv : env) {
      if (name_of(kv) == item) put(kv);
    }
  }
  return out;
}

void SetEnvEntry(std::vector<std::string>* env, const std::string& kv) {
  const std::string prefix = kv.substr(0, kv.find('=') + 1);
  for (std::string& e : *env) {
    if (e.rfind(prefix, 0) == 0) {
      e = kv;
      return;
    }
  }
  env->push_back(kv);
}

std::vector<std::string> SubmitEnvironment(const std::string& mode) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  env = ExportedEnvironment(mode, env);
  for (const std::string& kv : PropagatedLimitsEnvironment()) SetEnvEntry(&env, kv);
  return env;
}

int SignalNumber(const std::string& name) {
  std::string s = name;
  if (s.rfind("SIG", 0) == 0) s = s.substr(3);
  int sig = 0;
  if (!s.empty() && s.size() < 4 && s.find_first_not_of("0123456789") == std::string::npos) {
    sig = std::stoi(s);
  } else {
    for (int k = 1; k < NSIG; ++k) {
      const char* abbrev = sigabbrev_np(k);
      if (abbrev != nullptr && s == abbrev) sig = k;
    }
  }
  return sig > 0 && sig < NSIG ? sig : 0;
}

std::string LocalHostname() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return host;
}

int EmitOutput(const SlurmOutput& o, std::ostream& out, std::ostream& err) {
  out << o.out;
  err << o.err;
  return o.exit_code;
}

int ConnectError(const char* cmd, const Status& st, std::ostream& err) {
  err << cmd << ": error: " << st.message() << "\n";
  return 1;
}

std::string WillRunLine(const std::string& program, const WillRun& w) {
  const bool known = w.start_time > 0;
  return program + ": Job " + std::to_string(w.job_id) + " to start at " +
         (known ? FormatSlurmTime(w.start_time) : std::string("Unknown")) + " using " + std::to_string(w.cpus) +
         " processors on nodes " + (known ? w.nodes : std::string("(unknown)")) + " in partition " + w.partition +
         "\n";
}

}  // namespace muster
