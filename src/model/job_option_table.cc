#include "model/job_option_table.h"

#include <cstring>
#include <deque>
#include <mutex>
#include <string>

namespace muster {
namespace {

// Sorted by name: WithJobOptions keeps a sorted command table sorted.
constexpr OptionSpec kJobOptions[] = {
    {"comment", 0, OptionArg::kRequired, OptionUse::kJob},
    {"mail-type", 0, OptionArg::kRequired, OptionUse::kJob, 0, nullptr, "kept and shown (scontrol); Muster sends no mail"},
    {"mail-user", 0, OptionArg::kRequired, OptionUse::kJob, 0, nullptr, "kept and shown (scontrol); Muster sends no mail"},
    {"wckey", 0, OptionArg::kRequired, OptionUse::kJob},
};

// "own; command's", kept for the life of the process (the tables hold pointers to their notes).
const char* JoinedNote(const char* own, const char* command) {
  static std::mutex mu;
  static std::deque<std::string> kept;
  std::lock_guard lock(mu);
  return kept.emplace_back(std::string(own) + "; " + command).c_str();
}

}  // namespace

OptionTable JobOptionTable() { return kJobOptions; }

std::vector<OptionSpec> WithJobOptions(OptionTable own, const char* after, const char* note) {
  std::vector<OptionSpec> out;
  std::vector<OptionSpec> pending;
  for (OptionSpec row : kJobOptions) {
    if (note != nullptr) row.note = row.note == nullptr ? note : JoinedNote(row.note, note);
    pending.push_back(row);
  }
  size_t next = 0;              // the first of `pending` not yet placed
  bool open = after == nullptr;  // whether rows may be placed before the next own row
  for (const OptionSpec& o : own) {
    while (open && next < pending.size() && std::strcmp(pending[next].name, o.name) < 0) {
      out.push_back(pending[next++]);
    }
    out.push_back(o);
    open = open || std::strcmp(o.name, after) == 0;
  }
  while (next < pending.size()) out.push_back(pending[next++]);
  return out;
}

Status ApplyJobOption(JobOptions& options, const OptionOccurrence& o) {
  const std::string name = o.spec->Canonical();
  const std::string value = o.value.value_or("");
  if (name == "comment") {
    options.comment = value;
  } else if (name == "mail-type") {
    // Each occurrence adds its events, as Slurm's sbatch does.
    ASSIGN_OR_RETURN(int flags, ParseMailType(value));
    options.mail_type |= flags;
  } else if (name == "mail-user") {
    options.mail_user = value;
  } else if (name == "wckey") {
    options.wckey = value;
  } else {
    return InvalidArgument("--" + name + " is not an option a job carries");
  }
  return Status::Ok();
}

const OptionSpec* JobOptionByRestKey(std::string_view key) {
  for (const OptionSpec& row : kJobOptions) {
    const std::string name = row.Canonical();
    if (name.size() != key.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i) same = (name[i] == '-' ? '_' : name[i]) == key[i];
    if (same) return &row;
  }
  return nullptr;
}

}  // namespace muster
