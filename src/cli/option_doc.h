// The options of every Slurm-like command, as docs/slurm-compatibility.md lists them: the text is
// generated from the commands' own tables (model/option_engine.h's ListOptions, and scontrol's
// command table), so that the page cannot drift from what the commands do. `muster options-doc`
// prints it, or with a file writes it between the file's markers; a unit test (option_doc_test.cc)
// fails when the page's copy differs.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"

namespace muster {

inline constexpr char kOptionsDocBegin[] =
    "<!-- BEGIN generated options: `muster options-doc docs/slurm-compatibility.md` writes this part; do not edit "
    "it by hand -->";
inline constexpr char kOptionsDocEnd[] = "<!-- END generated options -->";

// The markdown between the markers (without them): one section per command.
std::string OptionsMarkdown();

// `doc` with the text between its markers replaced by OptionsMarkdown(); an error when a marker
// is missing or out of order.
StatusOr<std::string> WithGeneratedOptions(const std::string& doc);

// `muster options-doc [FILE]`: prints the markdown, or rewrites FILE's generated part.
int OptionsDocMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
