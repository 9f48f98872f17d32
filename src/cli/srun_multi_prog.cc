// srun --multi-prog: its configuration file read into each task's argv (Slurm's format).
#include <string>
#include <vector>

#include "base/status.h"
#include "base/strings.h"
#include "cli/srun_args.h"  // ParseMultiProg

namespace muster {

namespace {

// An error whose text srun prints as it is (as srun_args.cc's).
Status Error(const std::string& text) { return InvalidArgument(text); }

// Splits a --multi-prog line into words: blanks separate, '...' and "..." quote.
StatusOr<std::vector<std::string>> MultiProgWords(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : line) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) return Error("unbalanced quote");
  if (in_word) words.push_back(word);
  return words;
}

// "0", "1-3,5", "*" -> task ids (each < ntasks).
StatusOr<std::vector<int>> MultiProgRanks(const std::string& spec, int ntasks) {
  std::vector<int> out;
  if (spec == "*") {
    for (int t = 0; t < ntasks; ++t) out.push_back(t);
    return out;
  }
  for (const std::string& part : Split(spec, ',')) {
    const size_t dash = part.find('-');
    const std::string a = part.substr(0, dash), b = dash == std::string::npos ? a : part.substr(dash + 1);
    for (const std::string* n : {&a, &b}) {
      if (n->empty() || n->size() > 9 || n->find_first_not_of("0123456789") != std::string::npos) {
        return Error("invalid task range '" + part + "'");
      }
    }
    const int lo = std::stoi(a), hi = std::stoi(b);
    if (lo > hi) return Error("invalid task range '" + part + "'");
    if (hi >= ntasks) return Error("task id " + std::to_string(hi) + " out of range (the step has " +
                                   std::to_string(ntasks) + " tasks)");
    for (int t = lo; t <= hi; ++t) out.push_back(t);
  }
  if (out.empty()) return Error("no task ids");
  return out;
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
  return s;
}

}  // namespace

StatusOr<std::vector<std::vector<std::string>>> ParseMultiProg(const std::string& text, const std::string& path,
                                                               int ntasks) {
  std::vector<std::vector<std::string>> argv(static_cast<size_t>(ntasks));
  int line_no = 0;
  for (const std::string& raw : Split(text, '\n')) {
    ++line_no;
    std::string line = raw.substr(0, raw.find('#'));
    StatusOr<std::vector<std::string>> words = MultiProgWords(line);
    const auto bad = [&](const std::string& why) {
      return Error("srun: error: Line " + std::to_string(line_no) + " of configuration file " + path + ": " + why +
                   "\nsrun: error: Configuration file " + path + " invalid\n");
    };
    if (!words.ok()) return bad(words.status().message());
    if (words->empty()) continue;
    if (words->size() < 2) return bad("no program given for tasks " + (*words)[0]);
    StatusOr<std::vector<int>> ranks = MultiProgRanks((*words)[0], ntasks);
    if (!ranks.ok()) return bad(ranks.status().message());
    for (size_t k = 0; k < ranks->size(); ++k) {
      const int t = (*ranks)[k];
      if (!argv[t].empty()) return bad("task " + std::to_string(t) + " named twice");
      for (size_t w = 1; w < words->size(); ++w) {
        argv[t].push_back(ReplaceAll(ReplaceAll((*words)[w], "%t", std::to_string(t)), "%o", std::to_string(k)));
      }
    }
  }
  for (int t = 0; t < ntasks; ++t) {
    if (argv[t].empty()) {
      return Error("srun: error: Configuration file " + path + " invalid, no record for task id " +
                   std::to_string(t) + "\n");
    }
  }
  return argv;
}

}  // namespace muster
