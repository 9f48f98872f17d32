// ParseSbatchArgs: sbatch's argv + batch script -> SbatchRequest.
//
// Follows Slurm 22.05's sbatch (src/sbatch/sbatch.c, opt.c, src/common/slurm_opt.c, as read from
// its source) and the captures in shared/peers/slurm/captures/sbatch_*.txt:
//   - getopt_long in "+" mode (model/option_engine.h: options stop at the script path); getopt's own
//     messages, then 'Try "sbatch --help" for more information', exit 255.
//   - The script is checked before its directives are read: empty, only whitespace, no "#!", a NUL
//     byte, DOS line breaks (exit 1, Slurm's wording). --wrap makes "#!/bin/sh\n# This script was
//     created by sbatch --wrap.\n\n<cmd>\n", as Slurm's script_wrap does, and cannot take script
//     arguments.
//   - #SBATCH directives: lines starting with "#SBATCH", up to the first line that is neither blank
//     nor a comment; words split like Slurm's _get_argument (quotes group, a backslash escapes, an
//     unquoted '#' starts a comment). A word that is not an option stops them: "Invalid directive
//     found in batch script: <word>", exit 255. Command-line options are applied after directives, so
//     they win; a memory option (--mem, --mem-per-cpu, --mem-per-gpu) on the command line also
//     replaces any of the three from directives, as slurm_opt.c does.
//   - Value errors use Slurm's messages where Slurm has one for that value ("Invalid --time
//     specification" exit 255, "Invalid generic resource (gres) specification" exit 1, "Invalid
//     --mem specification", 'Invalid numeric value "x" for --ntasks.'); values Slurm takes but Muster
//     does not (e.g. --mem=0, --time=-5) get Muster's message after "sbatch: error: ".
// Differences, on purpose: Slurm options Muster does not implement (--bb, --reservation, ...) are
// rejected ("sbatch: error: --bb is not supported by Muster", exit 1) instead of being silently
// half-honoured; a few harmless ones (-v, -Q, --open-mode, ...) are accepted and listed
// in ignored_args. Unknown options in directives fail like unknown options on the command line
// (Slurm 22.05 prints getopt's complaint and carries on). SBATCH_* environment variables are not
// read (pure parser; the caller may turn them into arguments). The script path is not searched in
// $PATH.
#include "cli/sbatch_args.h"

#include "cli/command_args.h"
#include "model/job_option_table.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace muster {
namespace {

using Arg = OptionArg;
using Kind = OptionUse;

// Slurm 22.05 sbatch's options (slurm_opt.c entries that apply to sbatch), plus Muster's
// --gpu-fraction and --gpu-memory, but for those a job carries (model/job_options.h), which
// SbatchOptionTable() sorts in. Order matters only for the "ambiguous" message.
constexpr OptionSpec kSbatchOwnOptions[] = {
    {"account", 'A', Arg::kRequired, Kind::kOwn},
    {"acctg-freq", 0, Arg::kRequired, Kind::kIgnored, 0, nullptr, "no effect: Muster samples no per-task accounting"},
    {"array", 'a', Arg::kRequired, Kind::kOwn},
    {"batch", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "Muster has no node features for the batch host"},
    {"bb", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "Muster has no burst buffers"},
    {"bbf", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "Muster has no burst buffers"},
    {"begin", 'b', Arg::kRequired, Kind::kOwn},
    {"chdir", 'D', Arg::kRequired, Kind::kOwn},
    {"cluster", 'M', Arg::kRequired, Kind::kUnsupported, 0, "clusters",
     "one cluster: Muster has no other clusters to name"},
    {"cluster-constraint", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "one cluster: Muster has no other clusters to name"},
    {"clusters", 'M', Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "one cluster: Muster has no other clusters to name"},
    {"constraint", 'C', Arg::kRequired, Kind::kResource},
    {"container", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "Muster runs no OCI containers"},
    {"contiguous", 0, Arg::kNone, Kind::kUnsupported, 0, nullptr,
     "not implemented: nodes are not chosen for contiguity"},
    {"core-spec", 'S', Arg::kRequired, Kind::kUnsupported, 0, nullptr, "Muster reserves no cores for the system"},
    {"cores-per-socket", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"cpu-freq", 0, Arg::kRequired, Kind::kIgnored, 0, nullptr, "no effect: Muster sets no CPU frequency"},
    {"cpus-per-gpu", 0, Arg::kRequired, Kind::kResource},
    {"cpus-per-task", 'c', Arg::kRequired, Kind::kResource},
    {"deadline", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "not implemented"},
    {"delay-boot", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "Muster does not reboot nodes"},
    {"dependency", 'd', Arg::kRequired, Kind::kOwn},
    {"distribution", 'm', Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: tasks fill each node in turn (block)"},
    {"error", 'e', Arg::kRequired, Kind::kOwn},
    {"exclude", 'x', Arg::kRequired, Kind::kResource},
    {"exclusive", 0, Arg::kOptional, Kind::kResource, 0, nullptr,
     "only whole nodes: =user, =mcs and =topo are refused"},
    {"export", 0, Arg::kRequired, Kind::kOwn},
    {"export-file", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: --export names the variables"},
    {"extra-node-info", 'B', Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"get-user-env", 0, Arg::kOptional, Kind::kIgnored, 0, nullptr,
     "no effect: the job gets the submitting environment (--export)"},
    {"gid", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: jobs run with the submitter's groups"},
    {"gpu-bind", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented for sbatch: srun --gpu-bind binds a step's tasks"},
    {"gpu-fraction", 0, Arg::kRequired, Kind::kResource, 0, nullptr,
     "Muster: a fraction of one shared GPU (0 < F < 1)"},
    {"gpu-freq", 0, Arg::kRequired, Kind::kIgnored, 0, nullptr, "no effect: Muster sets no GPU frequency"},
    {"gpu-memory", 0, Arg::kRequired, Kind::kResource, 0, nullptr, "Muster: this much memory on one shared GPU"},
    {"gpus", 'G', Arg::kRequired, Kind::kResource},
    {"gpus-per-node", 0, Arg::kRequired, Kind::kResource},
    {"gpus-per-socket", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: Muster places GPUs per node"},
    {"gpus-per-task", 0, Arg::kRequired, Kind::kResource},
    {"gres", 0, Arg::kRequired, Kind::kResource, 0, nullptr, "only gpu[:type][:count] (or none)"},
    {"gres-flags", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "not implemented"},
    {"help", 'h', Arg::kNone, Kind::kMeta},
    {"hint", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"hold", 'H', Arg::kNone, Kind::kOwn},
    {"ignore-pbs", 0, Arg::kNone, Kind::kIgnored, 0, nullptr, "no effect: Muster reads no #PBS lines"},
    {"input", 'i', Arg::kRequired, Kind::kOwn},
    {"job-name", 'J', Arg::kRequired, Kind::kOwn},
    {"kill-on-invalid-dep", 0, Arg::kRequired, Kind::kIgnored, 0, nullptr,
     "no effect: a job whose dependency can never be met stays pending (DependencyNeverSatisfied)"},
    {"licenses", 'L', Arg::kRequired, Kind::kUnsupported, 0, nullptr, "Muster has no licenses"},
    {"mcs-label", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "Muster has no MCS labels"},
    {"mem", 0, Arg::kRequired, Kind::kResource, 0, nullptr, "0 (all of a node's memory) is refused"},
    {"mem-bind", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: memory is not bound to NUMA nodes"},
    {"mem-per-cpu", 0, Arg::kRequired, Kind::kResource},
    {"mem-per-gpu", 0, Arg::kRequired, Kind::kResource},
    {"mincpus", 0, Arg::kRequired, Kind::kResource, 0, nullptr,
     "nodes of at least N CPUs; each node of the job gets at least N (one task's CPUs more per further task)"},
    {"network", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "Muster has no network plugin"},
    {"nice", 0, Arg::kOptional, Kind::kOwn},
    {"no-kill", 'k', Arg::kOptional, Kind::kIgnored, 0, nullptr,
     "no effect: a node that fails ends the job (or requeues it)"},
    {"no-requeue", 0, Arg::kNone, Kind::kOwn},
    {"nodefile", 'F', Arg::kRequired, Kind::kUnsupported, 0, nullptr, "not implemented: -w names the nodes"},
    {"nodelist", 'w', Arg::kRequired, Kind::kResource, 0, nullptr, "more nodes than -N allows is refused"},
    {"nodes", 'N', Arg::kRequired, Kind::kResource, 0, nullptr, "0 is refused; no :step or lists"},
    {"ntasks", 'n', Arg::kRequired, Kind::kResource, 0, nullptr,
     "fewer than -N min is refused (Slurm lowers -N with a warning)"},
    {"ntasks-per-core", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"ntasks-per-gpu", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "not implemented: ask --gpus-per-task"},
    {"ntasks-per-node", 0, Arg::kRequired, Kind::kResource},
    {"ntasks-per-socket", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"open-mode", 0, Arg::kRequired, Kind::kIgnored, 0, nullptr,
     "no effect: output files are truncated when the job starts (Slurm's default)"},
    {"output", 'o', Arg::kRequired, Kind::kOwn},
    {"overcommit", 'O', Arg::kNone, Kind::kResource, 0, nullptr,
     "CPUs of one task per node (-c of them), shared by the node's tasks; srun inside it overcommits its steps"},
    {"oversubscribe", 's', Arg::kNone, Kind::kUnsupported, 0, nullptr, "not implemented: jobs never share CPUs"},
    {"parsable", 0, Arg::kOptional, Kind::kOwn},
    {"partition", 'p', Arg::kRequired, Kind::kResource},
    {"power", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "Muster has no power management"},
    {"priority", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: priorities come from the priority factors"},
    {"profile", 0, Arg::kRequired, Kind::kIgnored, 0, nullptr, "no effect: Muster has no profiling plugin"},
    {"propagate", 0, Arg::kOptional, Kind::kIgnored, 0, nullptr,
     "no effect: the submitting shell's limits always travel (PropagateResourceLimits=ALL)"},
    {"qos", 'q', Arg::kRequired, Kind::kOwn},
    {"quiet", 'Q', Arg::kNone, Kind::kIgnored, 0, nullptr, "no effect: sbatch prints only the job id and errors"},
    {"reboot", 0, Arg::kNone, Kind::kUnsupported, 0, nullptr, "Muster does not reboot nodes"},
    {"requeue", 0, Arg::kNone, Kind::kOwn},
    {"reservation", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "Muster has no reservations"},
    {"signal", 0, Arg::kRequired, Kind::kOwn, 0, nullptr, "R: (reservation overlap) accepted, means nothing"},
    {"sockets-per-node", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"spread-job", 0, Arg::kNone, Kind::kUnsupported, 0, nullptr, "not implemented"},
    {"switches", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "not implemented: no count of switches is asked"},
    {"test-only", 0, Arg::kNone, Kind::kOwn, 0, nullptr,
     "the job id shown is the one the next submission gets; none is taken (Slurm's test takes one)"},
    {"thread-spec", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "Muster reserves no threads for the system"},
    {"threads-per-core", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"time", 't', Arg::kRequired, Kind::kResource},
    {"time-min", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "not implemented: a job runs for its --time"},
    {"tmp", 0, Arg::kRequired, Kind::kResource, 0, nullptr, "nodes whose TmpDisk= (slurm.conf, or tmp_disk) is at least SIZE"},
    {"uid", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr, "not implemented: jobs run as their submitter"},
    {"usage", 'u', Arg::kNone, Kind::kMeta},
    {"use-min-nodes", 0, Arg::kNone, Kind::kUnsupported, 0, nullptr, "not implemented"},
    {"verbose", 'v', Arg::kNone, Kind::kIgnored, 0, nullptr, "no effect: sbatch prints no more"},
    {"version", 'V', Arg::kNone, Kind::kMeta},
    {"wait", 'W', Arg::kNone, Kind::kOwn},
    {"wait-all-nodes", 0, Arg::kRequired, Kind::kUnsupported, 0, nullptr,
     "no effect: a job starts when all its nodes are up"},
    {"wrap", 0, Arg::kRequired, Kind::kOwn, 0, nullptr, "ignored in #SBATCH directives, as in Slurm"},
};

// Status codes carry the exit status through Status (see SbatchError).
Status OptionError(const std::string& text) {  // exit 255
  return Status(StatusCode::kInvalidArgument, text);
}
Status FatalError(const std::string& text) {  // exit 1
  return Status(StatusCode::kFailedPrecondition, text);
}

// getopt's messages as sbatch prints them; SbatchError adds the final newline. The exit status is 255.
constexpr GetoptStyle kGetoptStyle{.program = "sbatch"};

// Slurm's _get_argument: the next word of a directive line, or nullopt at its end.
StatusOr<std::optional<std::string>> NextWord(const std::string& line, size_t* pos, const std::string& file,
                                              int lineno) {
  size_t p = *pos;
  while (p < line.size() && std::isspace(static_cast<unsigned char>(line[p]))) ++p;
  if (p >= line.size()) return std::optional<std::string>();
  std::string word;
  bool have = false, escape = false, quoted = false;
  char q = 0;
  while (p < line.size() && (quoted || !std::isspace(static_cast<unsigned char>(line[p])))) {
    const char c = line[p];
    if (escape) {
      escape = false;
    } else if (c == '\\') {
      escape = true;
      ++p;
      continue;
    } else if (quoted) {
      if (c == q) {
        quoted = false;
        ++p;
        continue;
      }
    } else if (c == '"' || c == '\'') {
      quoted = true;
      q = c;
      ++p;
      continue;
    } else if (c == '#') {
      break;  // an unescaped '#' starts a comment
    }
    word += c;
    have = true;
    ++p;
  }
  if (quoted) {
    return FatalError("sbatch: fatal: " + file + ": line " + std::to_string(lineno) + ": Unmatched `" +
                      std::string(1, q) + "` in [" + line + "]");
  }
  *pos = p;
  if (!have) {
    // Only a comment was left ("#SBATCH -N1 # two nodes"): nothing more on this line.
    *pos = line.size();
    return std::optional<std::string>();
  }
  return std::optional<std::string>(std::move(word));
}

// The words of the #SBATCH lines, up to the first line that is neither blank nor a comment.
StatusOr<std::vector<std::string>> DirectiveWords(const std::string& script, const std::string& file) {
  std::vector<std::string> words;
  size_t start = 0;
  int lineno = 0;
  while (start < script.size()) {
    size_t end = script.find('\n', start);
    if (end == std::string::npos) end = script.size();
    const std::string line = script.substr(start, end - start);
    start = end + 1;
    ++lineno;
    if (line.compare(0, 7, "#SBATCH") != 0) {
      bool is_command = false;
      for (char c : line) {
        if (std::isspace(static_cast<unsigned char>(c))) continue;
        is_command = c != '#';
        break;
      }
      if (is_command) break;
      continue;
    }
    size_t pos = 7;
    while (true) {
      ASSIGN_OR_RETURN(std::optional<std::string> word, NextWord(line, &pos, file, lineno));
      if (!word) break;
      words.push_back(std::move(*word));
    }
  }
  return words;
}

// Slurm's checks on a batch script (_get_script_buffer).
Status CheckScript(const std::string& s) {
  if (s.empty()) return FatalError("sbatch: error: Batch script is empty!");
  bool blank = true;
  for (char c : s) blank = blank && std::isspace(static_cast<unsigned char>(c));
  if (blank) return FatalError("sbatch: error: Batch script contains only whitespace!");
  if (s.size() < 2 || s[0] != '#' || s[1] != '!') {
    return FatalError(
        "sbatch: error: This does not look like a batch script.  The first\n"
        "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
        "sbatch: error: For instance: #!/bin/sh");
  }
  if (s.find('\0') != std::string::npos) {
    return FatalError(
        "sbatch: error: The Slurm controller does not allow scripts that\n"
        "sbatch: error: contain a NULL character '\\0'.");
  }
  if (s.find("\r\n") != std::string::npos) {
    return FatalError(
        "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n"
        "sbatch: error: instead of expected UNIX line breaks (\\n).");
  }
  return Status::Ok();
}

bool IsMemoryOption(const std::string& name) {
  return name == "mem" || name == "mem-per-cpu" || name == "mem-per-gpu";
}

// Slurm's message for a bad value of one resource option; Muster's own for values Slurm accepts.
Status ResourceValueError(const std::string& option, const std::string& value, const Status& muster) {
  std::string detail = muster.message();
  const std::string prefix = "--" + option + ": ";
  if (detail.compare(0, prefix.size(), prefix) == 0) detail = detail.substr(prefix.size());
  if (option == "time") {
    if (!ParseTimeSpec(value).ok()) return OptionError("sbatch: error: Invalid --time specification");
  } else if (option == "gres" || option == "gpus" || option == "gpus-per-node" || option == "gpus-per-task") {
    return FatalError("sbatch: error: Invalid generic resource (gres) specification");
  } else if (IsMemoryOption(option)) {
    if (!ParseMemoryMb(value).ok()) return OptionError("sbatch: error: Invalid --" + option + " specification");
  } else if (option == "ntasks" || option == "cpus-per-task" || option == "ntasks-per-node" ||
             option == "cpus-per-gpu") {
    return FatalError("sbatch: error: Invalid numeric value \"" + value + "\" for --" + option + ".");
  }
  return OptionError("sbatch: error: --" + option + ": " + detail);
}

std::string Absolute(const std::string& path, const std::string& cwd) {
  if (!path.empty() && path[0] == '/') return path;
  if (cwd.empty()) return path;
  return cwd.back() == '/' ? cwd + path : cwd + "/" + path;
}

std::string BaseName(const std::string& path) {
  size_t end = path.size();
  while (end > 1 && path[end - 1] == '/') --end;
  const size_t slash = path.rfind('/', end - 1);
  return slash == std::string::npos ? path.substr(0, end) : path.substr(slash + 1, end - slash - 1);
}

// Applies the non-resource options of one pass (directives or command line) to `r`.
Status ApplyOwn(const std::vector<OptionOccurrence>& opts, const std::string& cwd, SbatchRequest* r) {
  for (const OptionOccurrence& p : opts) {
    const std::string name = p.spec->Canonical();
    const std::string v = p.value.value_or("");
    switch (p.spec->use) {
      case Kind::kResource:
      case Kind::kMeta:
        break;
      case Kind::kIgnored:
        r->ignored_args.push_back(p.CanonicalArg());
        break;
      case Kind::kUnsupported:
        return FatalError("sbatch: error: --" + name + " is not supported by Muster");
      case Kind::kJob:
        if (const Status s = ApplyJobOption(r->options, p); !s.ok()) {
          return InvalidArgument("sbatch: error: " + s.message());
        }
        break;
      case Kind::kOwn:
        if (name == "job-name") {
          r->name = v;
        } else if (name == "output") {
          r->output = v;
        } else if (name == "error") {
          r->error = v;
        } else if (name == "input") {
          r->input = v;
        } else if (name == "chdir") {
          r->workdir = Absolute(v, cwd);
        } else if (name == "account") {
          r->account = v;
        } else if (name == "export") {
          r->export_mode = v;
        } else if (name == "array") {
          r->array = v;
        } else if (name == "dependency") {
          r->dependency = v;
        } else if (name == "begin") {
          r->begin = v;
        } else if (name == "qos") {
          r->qos = v;
        } else if (name == "nice") {
          // --nice alone is +100, as Slurm; --nice=N adds N (-2147483645..2147483645).
          if (!p.value) {
            r->nice = 100;
          } else {
            char* end = nullptr;
            errno = 0;
            const long long n = std::strtoll(v.c_str(), &end, 10);
            if (v.empty() || *end != '\0' || errno != 0 || n > 2147483645LL || n < -2147483645LL) {
              return InvalidArgument("Invalid --nice value: " + v);
            }
            r->nice = n;
          }
        } else if (name == "parsable") {
          r->parsable = true;
        } else if (name == "wait") {
          r->wait = true;
        } else if (name == "test-only") {
          r->test_only = true;
        } else if (name == "signal") {
          // [{R|B}:]SIG[@TIME]: R (reservation overlap) means nothing here; B: the batch shell only.
          std::string spec = v;
          r->signal_batch_only = false;
          if (const size_t colon = spec.find(':'); colon != std::string::npos) {
            const std::string flags = spec.substr(0, colon);
            if (flags.empty() || flags.find_first_not_of("RB") != std::string::npos) {
              return OptionError("sbatch: error: Invalid --signal specification");
            }
            r->signal_batch_only = flags.find('B') != std::string::npos;
            spec = spec.substr(colon + 1);
          }
          const size_t at = spec.find('@');
          const std::string time = at == std::string::npos ? "60" : spec.substr(at + 1);
          r->signal = SignalNumber(spec.substr(0, at));
          if (r->signal == 0 || time.empty() || time.size() > 5 ||
              time.find_first_not_of("0123456789") != std::string::npos || std::stoi(time) > 65535) {
            return OptionError("sbatch: error: Invalid --signal specification");
          }
          r->signal_time_s = std::stoi(time);
        } else if (name == "hold") {
          r->hold = true;
        } else if (name == "requeue") {
          r->requeue = true;
        } else if (name == "no-requeue") {
          r->requeue = false;
        }
        // --wrap is taken in the first pass (and ignored in directives, as in Slurm).
        break;
    }
  }
  return Status::Ok();
}

}  // namespace

std::string WrapScript(const std::string& command) {
  return "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n" + command + "\n";
}

// The resource options of one job (or heterogeneous component): its directives, then its
// command line, read once into its request, each value checked as it comes so that an error names
// it as Slurm would, and kept as given (the job's submit_args). A memory option on the command
// line replaces the directives' (Slurm's --mem* are exclusive).
struct Resources {
  JobRequest request;
  std::vector<std::string> args;
};
StatusOr<Resources> ReadResources(const std::vector<OptionOccurrence>& directives,
                                  const std::vector<OptionOccurrence>& cli) {
  bool cli_sets_memory = false;
  for (const OptionOccurrence& p : cli) {
    cli_sets_memory = cli_sets_memory || IsMemoryOption(p.spec->Canonical());
  }
  std::vector<const OptionOccurrence*> resources;
  for (const OptionOccurrence& p : directives) {
    if (p.spec->use != Kind::kResource) continue;
    if (cli_sets_memory && IsMemoryOption(p.spec->Canonical())) continue;
    resources.push_back(&p);
  }
  for (const OptionOccurrence& p : cli) {
    if (p.spec->use == Kind::kResource) resources.push_back(&p);
  }
  JobRequestBuilder builder;
  Resources out;
  for (const OptionOccurrence* p : resources) {
    if (Status applied = builder.Apply(*p); !applied.ok()) {
      return ResourceValueError(p->spec->Canonical(), p->value.value_or(""), applied);
    }
    out.args.push_back(p->CanonicalArg());
  }
  StatusOr<JobRequest> request = builder.Finish();
  if (!request.ok()) return FatalError("sbatch: error: " + request.status().message());
  out.request = std::move(request).value();
  return out;
}

// The words of the directives split at `#SBATCH hetjob` (or its old name, packjob): one list
// per heterogeneous component.
std::vector<std::vector<std::string>> SplitAtHetjob(const std::vector<std::string>& words) {
  std::vector<std::vector<std::string>> groups(1);
  for (const std::string& w : words) {
    if (w == "hetjob" || w == "packjob") {
      groups.emplace_back();
    } else {
      groups.back().push_back(w);
    }
  }
  return groups;
}

namespace {

// The command line's heterogeneous components: "sbatch OPTS0 : OPTS1 : OPTS2 script args". Each
// ':' ends a component's options; the last component's are followed by the script. `args` is left
// with the leader's options and the script and its arguments; returned: the components after it.
std::vector<std::vector<std::string>> SplitComponents(std::vector<std::string>& args) {
  std::vector<std::vector<std::string>> cli_groups;
  while (true) {
    StatusOr<size_t> operand =
        Getopt(SbatchOptionTable(), args, kGetoptStyle, [](const OptionOccurrence&) { return Status::Ok(); });
    if (!operand.ok() || *operand >= args.size() || args[*operand] != ":") break;
    const auto colon = args.begin() + static_cast<std::ptrdiff_t>(*operand);
    cli_groups.emplace_back(args.begin(), colon);
    args.erase(args.begin(), colon + 1);
  }
  if (!cli_groups.empty()) {
    // The leader's options come first; the script and its arguments stay with the last group's.
    cli_groups.push_back(std::move(args));
    args = std::move(cli_groups.front());
    std::vector<std::string>& last = cli_groups.back();
    StatusOr<size_t> first =
        Getopt(SbatchOptionTable(), last, kGetoptStyle, [](const OptionOccurrence&) { return Status::Ok(); });
    if (first.ok()) {
      const auto operand = last.begin() + static_cast<std::ptrdiff_t>(std::min(*first, last.size()));
      args.insert(args.end(), operand, last.end());
      last.erase(operand, last.end());
    }
    cli_groups.erase(cli_groups.begin());  // (now the components after the leader)
  }

  return cli_groups;
}

// The script (generated with --wrap, else read from its path or standard input) and the words of
// its #SBATCH directives.
StatusOr<std::vector<std::string>> ReadScript(const std::vector<std::string>& args, size_t first_operand,
                                              const std::optional<std::string>& wrap, const ScriptReader& read_script,
                                              SbatchRequest& r) {
  std::vector<std::string> directive_words;
  if (wrap) {
    r.script = WrapScript(*wrap);
    r.name = "wrap";
  } else {
    if (first_operand < args.size()) {
      r.script_path = args[first_operand];
      r.script_args.assign(args.begin() + static_cast<std::ptrdiff_t>(first_operand) + 1, args.end());
    }
    StatusOr<std::string> text = read_script(r.script_path);
    if (!text.ok()) return FatalError("sbatch: error: Unable to open file " + r.script_path);
    r.script = std::move(text).value();
    RETURN_IF_ERROR(CheckScript(r.script));
    r.name = r.script_path.empty() ? "sbatch" : BaseName(r.script_path);
    ASSIGN_OR_RETURN(directive_words,
                     DirectiveWords(r.script, r.script_path.empty() ? "(null)" : r.script_path));
  }
  return directive_words;
}

// One component's directives as options (an operand there is an invalid directive).
StatusOr<std::vector<OptionOccurrence>> ReadDirectives(const std::vector<std::string>& words) {
  ASSIGN_OR_RETURN(ParsedOptions in_script, Getopt(SbatchOptionTable(), words, kGetoptStyle));
  if (in_script.first_operand < words.size()) {
    return OptionError("sbatch: error: Invalid directive found in batch script: " + words[in_script.first_operand]);
  }
  return std::move(in_script.options);
}

// A heterogeneous job's further components: each its own directives and command line; the
// account and QOS pass on from the component before when not given (as Slurm propagates them).
Status ReadComponents(const std::vector<std::vector<std::string>>& directive_groups,
                      const std::vector<std::vector<OptionOccurrence>>& later_cli, const std::string& cwd,
                      SbatchRequest& r) {
  const size_t components = std::max(directive_groups.size(), later_cli.size() + 1);
  std::string account = r.account, qos = r.qos;
  for (size_t k = 1; k < components; ++k) {
    std::vector<OptionOccurrence> own_directives, own_cli;
    if (k < directive_groups.size()) {
      ASSIGN_OR_RETURN(own_directives, ReadDirectives(directive_groups[k]));
    }
    if (k - 1 < later_cli.size()) own_cli = later_cli[k - 1];
    SbatchRequest scratch;
    RETURN_IF_ERROR(ApplyOwn(own_directives, cwd, &scratch));
    RETURN_IF_ERROR(ApplyOwn(own_cli, cwd, &scratch));
    {
      // What is not the component's own (its account and QOS) is the job's: the output files,
      // the name, --wrap, ...
      const std::string leader_account = r.account, leader_qos = r.qos;
      RETURN_IF_ERROR(ApplyOwn(own_cli, cwd, &r));
      r.account = leader_account;
      r.qos = leader_qos;
    }
    HetComponentSpec c;
    ASSIGN_OR_RETURN(Resources component, ReadResources(own_directives, own_cli));
    c.resources = std::move(component.request);
    c.submit_args = std::move(component.args);
    if (!scratch.account.empty()) account = scratch.account;
    if (!scratch.qos.empty()) qos = scratch.qos;
    c.account = account;
    c.qos = qos;
    r.het_components.push_back(std::move(c));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<SbatchRequest> ParseSbatchArgs(const std::vector<std::string>& all_args, const std::string& cwd,
                                        const ScriptReader& read_script) {
  SbatchRequest r;
  r.export_mode = "ALL";
  r.workdir = cwd;

  std::vector<std::string> args = all_args;
  const std::vector<std::vector<std::string>> cli_groups = SplitComponents(args);
  // First pass: the command line's shape, --help/--usage/--version, --wrap, the script operand.
  ASSIGN_OR_RETURN(ParsedOptions parsed, Getopt(SbatchOptionTable(), args, kGetoptStyle));
  const std::vector<OptionOccurrence>& cli = parsed.options;
  const size_t first_operand = parsed.first_operand;
  std::optional<std::string> wrap;
  for (const OptionOccurrence& p : cli) {
    const std::string name = p.spec->Canonical();
    if (name == "help") r.help = true;
    if (name == "usage") r.usage = true;
    if (name == "version") r.version = true;
    if (name == "wrap") wrap = p.value;
    if (r.help || r.usage || r.version) return r;  // Slurm prints and exits at the first of them
  }
  // Options of the job as a whole given in a later component's place ("sbatch -n1 : -n2
  // --wrap=..."): --wrap decides the script; the others apply as in the first (below).
  std::vector<std::vector<OptionOccurrence>> later_cli;
  for (const std::vector<std::string>& g : cli_groups) {
    ASSIGN_OR_RETURN(ParsedOptions p, Getopt(SbatchOptionTable(), g, kGetoptStyle));
    if (p.first_operand < g.size()) {
      return OptionError("sbatch: error: unexpected argument '" + g[p.first_operand] +
                         "' in heterogeneous job component " + std::to_string(later_cli.size() + 1));
    }
    for (const OptionOccurrence& o : p.options) {
      if (o.spec->Canonical() == "wrap") wrap = o.value;
    }
    later_cli.push_back(std::move(p.options));
  }
  if (wrap && first_operand < args.size()) {
    return FatalError("sbatch: error: Script arguments not permitted with --wrap option");
  }

  // The script.
  ASSIGN_OR_RETURN(const std::vector<std::string> directive_words, ReadScript(args, first_operand, wrap, read_script, r));
  const std::vector<std::vector<std::string>> directive_groups = SplitAtHetjob(directive_words);

  // Second pass: directives, then the command line (the leader's: the first component's).
  ASSIGN_OR_RETURN(const std::vector<OptionOccurrence> directives, ReadDirectives(directive_groups.front()));
  RETURN_IF_ERROR(ApplyOwn(directives, cwd, &r));
  RETURN_IF_ERROR(ApplyOwn(cli, cwd, &r));
  ASSIGN_OR_RETURN(Resources own, ReadResources(directives, cli));
  r.resource_args = std::move(own.args);
  r.request = std::move(own.request);
  r.request.name = r.name;

  RETURN_IF_ERROR(ReadComponents(directive_groups, later_cli, cwd, r));
  r.request.name = r.name;
  return r;
}

CommandError SbatchError(const Status& status) {
  CommandError e;
  e.exit_code = status.code() == StatusCode::kInvalidArgument ? 255 : 1;
  e.stderr_text = status.message();
  if (e.stderr_text.empty() || e.stderr_text.back() != '\n') e.stderr_text += '\n';
  return e;
}

StatusOr<size_t> SbatchFirstOperand(const std::vector<std::string>& args, std::string_view program) {
  const GetoptStyle style{.program = program};
  return Getopt(SbatchOptionTable(), args, style, [](const OptionOccurrence&) { return Status::Ok(); });
}

OptionTable SbatchOptionTable() {
  static const std::vector<OptionSpec> table = WithJobOptions(kSbatchOwnOptions);
  return table;
}

std::vector<std::string> SbatchEnvironmentArgs(const std::function<const char*(const char*)>& getenv) {
  // Slurm 22.05 sbatch(1), INPUT ENVIRONMENT VARIABLES: variable -> option (flags take no value).
  static constexpr struct {
    const char* var;
    const char* option;
    bool flag;
  } kVars[] = {
      {"SBATCH_ACCOUNT", "--account", false},         {"SBATCH_ARRAY_INX", "--array", false},
      {"SBATCH_CONSTRAINT", "--constraint", false},   {"SBATCH_CPUS_PER_GPU", "--cpus-per-gpu", false},
      {"SBATCH_EXCLUSIVE", "--exclusive", true},      {"SBATCH_EXPORT", "--export", false},
      {"SBATCH_GPUS", "--gpus", false},               {"SBATCH_GPUS_PER_NODE", "--gpus-per-node", false},
      {"SBATCH_GPUS_PER_TASK", "--gpus-per-task", false}, {"SBATCH_GRES", "--gres", false},
      {"SBATCH_IGNORE_PBS", "--ignore-pbs", true},    {"SBATCH_JOB_NAME", "--job-name", false},
      {"SBATCH_MEM_PER_CPU", "--mem-per-cpu", false}, {"SBATCH_MEM_PER_GPU", "--mem-per-gpu", false},
      {"SBATCH_MEM_PER_NODE", "--mem", false},        {"SBATCH_NO_REQUEUE", "--no-requeue", true},
      {"SBATCH_OPEN_MODE", "--open-mode", false},     {"SBATCH_PARTITION", "--partition", false},
      {"SBATCH_QOS", "--qos", false},                 {"SBATCH_REQUEUE", "--requeue", true},
      {"SBATCH_SIGNAL", "--signal", false},           {"SBATCH_TIMELIMIT", "--time", false},
      {"SBATCH_WAIT", "--wait", true},                {"SBATCH_WCKEY", "--wckey", false},
      {"SBATCH_ERROR", "--error", false},             {"SBATCH_INPUT", "--input", false},
      {"SBATCH_OUTPUT", "--output", false},
  };
  std::vector<std::string> args;
  for (const auto& v : kVars) {
    const char* value = getenv(v.var);
    if (value == nullptr) continue;
    if (v.flag) {
      args.push_back(v.option);
    } else if (*value != '\0') {
      args.push_back(std::string(v.option) + "=" + value);
    }
  }
  return args;
}

std::string SbatchUsage() {  // Slurm 22.05's, word for word
  return
      "Usage: sbatch [-N nnodes] [-n ntasks]\n"
      "              [-c ncpus] [-r n] [-p partition] [--hold] [--parsable] [-t minutes]\n"
      "              [-D path] [--no-kill] [--overcommit]\n"
      "              [--input file] [--output file] [--error file]\n"
      "              [--time-min=minutes] [--licenses=names] [--clusters=cluster_names]\n"
      "              [--chdir=directory] [--oversubscribe] [-m dist] [-J jobname]\n"
      "              [--verbose] [--gid=group] [--uid=user]\n"
      "              [--contiguous] [--mincpus=n] [--mem=MB] [--tmp=MB] [-C list]\n"
      "              [--account=name] [--dependency=type:jobid[+time]] [--comment=name]\n"
      "              [--mail-type=type] [--mail-user=user] [--nice[=value]] [--wait]\n"
      "              [--requeue] [--no-requeue] [--ntasks-per-node=n] [--propagate]\n"
      "              [--nodefile=file] [--nodelist=hosts] [--exclude=hosts]\n"
      "              [--network=type] [--mem-per-cpu=MB] [--qos=qos] [--gres=list]\n"
      "              [--mem-bind=...] [--reservation=name] [--mcs-label=mcs]\n"
      "              [--cpu-freq=min[-max[:gov]]] [--power=flags] [--gres-flags=opts]\n"
      "              [--switches=max-switches{@max-time-to-wait}] [--reboot]\n"
      "              [--core-spec=cores] [--thread-spec=threads]\n"
      "              [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]\n"
      "              [--array=index_values] [--profile=...] [--ignore-pbs] [--spread-job]\n"
      "              [--export[=names]] [--export-file=file|fd] [--delay-boot=mins]\n"
      "              [--use-min-nodes]\n"
      "              [--cpus-per-gpu=n] [--gpus=n] [--gpu-bind=...] [--gpu-freq=...]\n"
      "              [--gpus-per-node=n] [--gpus-per-socket=n] [--gpus-per-task=n]\n"
      "              [--mem-per-gpu=MB]\n"
      "              executable [args...]\n";
}

std::string SbatchHelp() {
  return std::string("Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n") +
         "\n"
         "Parallel run options:\n"
         "  -A, --account=name          charge job to specified account\n"
         "      --comment=name          arbitrary comment\n"
         "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
         "  -D, --chdir=directory       set working directory for batch script\n"
         "  -e, --error=err             file for batch script's standard error\n"
         "      --export[=names]        specify environment variables to export\n"
         "  -H, --hold                  submit job in held state\n"
         "  -i, --input=in              file for batch script's standard input\n"
         "  -J, --job-name=jobname      name of job\n"
         "  -n, --ntasks=ntasks         number of tasks to run\n"
         "      --ntasks-per-node=n     number of tasks to invoke on each node\n"
         "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
         "  -o, --output=out            file for batch script's standard output\n"
         "  -p, --partition=partition   partition requested\n"
         "      --parsable              outputs only the jobid and cluster name (if present)\n"
         "  -q, --qos=qos               quality of service\n"
         "      --requeue               if set, permit the job to be requeued\n"
         "      --no-requeue            if set, do not permit the job to be requeued\n"
         "  -t, --time=minutes          time limit\n"
         "      --wrap[=command string] wrap command string in a sh script and submit\n"
         "\n"
         "Constraint options:\n"
         "  -C, --constraint=list       specify a list of constraints\n"
         "      --mem=MB                minimum amount of real memory\n"
         "      --mem-per-cpu=MB        maximum amount of real memory per allocated cpu\n"
         "  -w, --nodelist=hosts...     request a specific list of hosts\n"
         "  -x, --exclude=hosts...      exclude a specific list of hosts\n"
         "      --exclusive             allocate nodes in exclusive mode\n"
         "\n"
         "GPU scheduling options:\n"
         "      --cpus-per-gpu=n        number of CPUs required per allocated GPU\n"
         "  -G, --gpus=n                count of GPUs required for the job\n"
         "      --gpus-per-node=n       number of GPUs required per allocated node\n"
         "      --gpus-per-task=n       number of GPUs required per spawned task\n"
         "      --gres=list             required generic resources\n"
         "      --mem-per-gpu=n         real memory required per allocated GPU\n"
         "      --gpu-fraction=F        a fraction of one shared GPU (Muster)\n"
         "      --gpu-memory=SIZE       GPU memory on one shared GPU (Muster)\n"
         "\n"
         "Help options:\n"
         "  -h, --help                  show this help message\n"
         "      --usage                 display brief usage message\n";
}

}  // namespace muster
