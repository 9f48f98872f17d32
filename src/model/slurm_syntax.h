// Slurm's config syntax, shared by every reader of its files (slurm.conf, gres.conf,
// topology.conf), as Slurm's parse_config.c reads it: '#' starts a comment unless escaped as "\#",
// a line ending in '\' continues on the next, and a line is Key=Value pairs (a key of letters,
// digits, '_' and '.', blanks allowed around '=', a value "quoted" or running to the next blank).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace muster {

// One logical line: physical lines joined at trailing backslashes, comments removed.
struct SlurmConfLine {
  std::string text;
  std::vector<std::pair<size_t, int>> starts;  // (offset in text, physical line number), ascending

  int LineAt(size_t offset) const;  // the physical line of the text at `offset`
  int first_line() const { return starts.empty() ? 0 : starts.front().second; }
};

std::vector<SlurmConfLine> SlurmConfLines(const std::string& text);

struct SlurmConfPair {
  std::string key;    // as written
  std::string lower;  // lower case, for comparisons
  std::string value;  // quotes removed
  int line = 0;       // physical line of the key
};

// "<source>:<line>", or "line <line>" when the text has no source name (topology.conf given inline).
std::string SlurmConfWhere(const std::string& source, int line);

// User text in a message, shortened so that a megabyte of junk stays readable, and quoted.
std::string SlurmConfShort(std::string_view s);
std::string SlurmConfQuote(std::string_view s);

// The pairs of a line. Errors: "<where>: expected Key=Value, got 'foo'", "<where>: unterminated
// '\"' in the value of Key=", "<where>: text after the closing '\"' of Key=".
StatusOr<std::vector<SlurmConfPair>> TokenizeSlurmConfLine(const SlurmConfLine& line, const std::string& source);

// Slurm's `Include FILE` (no '='), recognised so that it gets its own message.
bool IsSlurmConfInclude(const std::string& text);

// "<source>:<line>: <Key>=<value>: <message>".
Status SlurmConfPairError(const std::string& source, const SlurmConfPair& p, const std::string& msg);

// A whole run of decimal digits, at most 12 of them; false for anything else.
bool ParseSlurmConfInt(std::string_view s, int64_t* out);

// The options of one NodeName=/PartitionName=/... line: the line's pairs over the DEFAULT line's.
// Aliases (Feature/Features, Procs/CPUs) share one canonical key.
class SlurmConfOptions {
 public:
  SlurmConfOptions(const std::string& source, std::string kind) : source_(source), kind_(std::move(kind)) {}

  // Adds the pairs of one line (the first one, the line's own name, included). An option not in
  // `known` (lower case -> canonical key) or given twice on the line is an error.
  Status AddLine(const std::vector<SlurmConfPair>& pairs, const std::map<std::string, std::string>& known);
  void Merge(const SlurmConfOptions& over);

  const SlurmConfPair* Find(const std::string& key) const;
  Status Error(const SlurmConfPair& p, const std::string& msg) const { return SlurmConfPairError(source_, p, msg); }

  // The readers leave *out unchanged when the key is absent.
  Status Int(const std::string& key, int64_t* out, int64_t min, int64_t max) const;
  Status Memory(const std::string& key, int64_t* out) const;
  Status Time(const std::string& key, int64_t* out) const;
  // Slurm's booleans: YES/NO (also TRUE/FALSE, Y/N, 1/0, UP/DOWN as its s_p_boolean reads them).
  Status Bool(const std::string& key, bool* out) const;

 private:
  std::string source_;
  std::string kind_;
  std::map<std::string, SlurmConfPair> pairs_;  // canonical key -> pair
};

}  // namespace muster
