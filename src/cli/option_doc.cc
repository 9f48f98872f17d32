#include "cli/option_doc.h"

#include <fstream>
#include <sstream>
#include <string_view>

#include "base/read_file.h"
#include "cli/command_options.h"
#include "cli/sacct_command.h"
#include "cli/sreport_command.h"
#include "cli/salloc_command.h"
#include "cli/sdiag_command.h"
#include "cli/sbatch_args.h"
#include "cli/srun_args.h"
#include "model/option_engine.h"

namespace muster {
namespace {

// A table cell: '|' escaped, so that a note cannot break the row.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string Code(const std::string& text) { return text.empty() ? "" : "`" + text + "`"; }

// The state as users read it: implemented as Slurm, implemented with the note's difference,
// accepted without effect, or refused.
std::string State(const OptionRow& row) {
  if (row.state == "ignored") return "accepted, no effect";
  if (row.state == "unsupported") return "refused";
  if (row.state == "meta") return "Muster's text";
  return row.note.empty() ? "as Slurm" : "as Slurm, except";
}

void OptionSection(std::ostream& out, const char* command, OptionTable table, const char* intro) {
  out << "\n### " << command << "\n\n";
  if (intro != nullptr) out << intro << "\n\n";
  out << "| option | short | argument | state | note |\n|---|---|---|---|---|\n";
  for (const OptionRow& row : ListOptions(table)) {
    std::string note = row.note;
    // The state already says it ("accepted, no effect"); the note says why.
    if (row.state == "ignored" && note.starts_with("no effect: ")) note = note.substr(11);
    if (!row.alias_of.empty()) note = "alias of `" + row.alias_of + "`" + (note.empty() ? "" : "; " + note);
    out << "| " << Code(row.name) << " | " << Code(row.short_name) << " | " << row.argument << " | " << State(row)
        << " | " << Cell(note) << " |\n";
  }
}

void ScontrolCommandSection(std::ostream& out) {
  out << "\n### scontrol commands\n\n"
         "The first word after scontrol's options (`show` with its entity); a refused one prints\n"
         "`scontrol: error: <command> is not supported by Muster: <note>` and exits 1.\n\n"
         "| command | state | note |\n|---|---|---|\n";
  for (const ScontrolCommandSpec& c : ScontrolCommandTable()) {
    OptionRow row;
    row.state = c.use == OptionUse::kIgnored       ? "ignored"
                : c.use == OptionUse::kUnsupported ? "unsupported"
                : c.use == OptionUse::kMeta        ? "meta"
                                                   : "own";
    row.note = c.note != nullptr ? c.note : "";
    if (row.state == "ignored" && row.note.starts_with("no effect: ")) row.note = row.note.substr(11);
    out << "| `" << c.name << "` | " << State(row) << " | " << Cell(row.note) << " |\n";
  }
}

}  // namespace

std::string OptionsMarkdown() {
  std::ostringstream out;
  out << "\nGenerated from the commands' option tables (`muster options-doc`). States: **as Slurm**\n"
         "(implemented as Slurm 22.05 does it), **as Slurm, except** (implemented; the note says how it\n"
         "differs), **accepted, no effect** (the note says why that is harmless), **refused** (the\n"
         "command prints `<command>: error: --<option> is not supported by Muster` and exits 1; the note\n"
         "says why), **Muster's text** (`--help`, `--usage`, `-V`: see the differences kept on purpose).\n";
  OptionSection(out, "sbatch", SbatchOptionTable(), nullptr);
  OptionSection(out, "srun", SrunOptionTable(), nullptr);
  OptionSection(out, "salloc", SallocOptionTable(),
                "salloc's own options; every other option is read as sbatch reads it (the table above).");
  OptionSection(out, "squeue", SqueueOptionTable(), nullptr);
  OptionSection(out, "sinfo", SinfoOptionTable(), nullptr);
  OptionSection(out, "scancel", ScancelOptionTable(), nullptr);
  OptionSection(out, "scontrol", ScontrolOptionTable(), nullptr);
  ScontrolCommandSection(out);
  OptionSection(out, "sacct", SacctOptionTable(), nullptr);
  OptionSection(out, "sacctmgr", SacctmgrOptionTable(), nullptr);
  OptionSection(out, "sprio", SprioOptionTable(), nullptr);
  OptionSection(out, "sshare", SshareOptionTable(), nullptr);
  OptionSection(out, "sreport", SreportOptionTable(), nullptr);
  OptionSection(out, "sdiag", SdiagOptionTable(), nullptr);
  out << "\n";
  return out.str();
}

StatusOr<std::string> WithGeneratedOptions(const std::string& doc) {
  const size_t begin = doc.find(kOptionsDocBegin);
  const size_t end = doc.find(kOptionsDocEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) {
    return InvalidArgument(std::string("the markers are missing or out of order: ") + kOptionsDocBegin + " ... " +
                           kOptionsDocEnd);
  }
  const size_t from = begin + std::string_view(kOptionsDocBegin).size();
  return doc.substr(0, from) + OptionsMarkdown() + doc.substr(end);
}

int OptionsDocMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    out << OptionsMarkdown();
    return 0;
  }
  if (args.size() != 1 || args[0].starts_with("-")) {
    err << "usage: muster options-doc [FILE]   (FILE: docs/slurm-compatibility.md, rewritten between its markers)\n";
    return 2;
  }
  StatusOr<std::string> text = ReadWholeFile(args[0]);
  if (!text.ok()) {
    err << "muster options-doc: cannot read " << args[0] << "\n";
    return 1;
  }
  StatusOr<std::string> doc = WithGeneratedOptions(*text);
  if (!doc.ok()) {
    err << "muster options-doc: " << args[0] << ": " << doc.status().message() << "\n";
    return 1;
  }
  std::ofstream write(args[0], std::ios::trunc);
  write << *doc;
  if (!write.flush()) {
    err << "muster options-doc: cannot write " << args[0] << "\n";
    return 1;
  }
  return 0;
}

}  // namespace muster
