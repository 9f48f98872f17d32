#include "model/slurm_syntax.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>

#include "base/strings.h"
#include "model/job_request.h"

namespace muster {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool IsKeyChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

}  // namespace

int SlurmConfLine::LineAt(size_t offset) const {
  // The last start at or before `offset` (starts[0] is at 0).
  auto it = std::upper_bound(starts.begin(), starts.end(), offset,
                             [](size_t off, const std::pair<size_t, int>& s) { return off < s.first; });
  return std::prev(it)->second;
}

std::string SlurmConfWhere(const std::string& source, int line) {
  return source.empty() ? "line " + std::to_string(line) : source + ":" + std::to_string(line);
}

std::string SlurmConfShort(std::string_view s) {
  constexpr size_t kMax = 80;
  if (s.size() <= kMax) return std::string(s);
  return std::string(s.substr(0, kMax)) + "...";
}

std::string SlurmConfQuote(std::string_view s) { return "'" + SlurmConfShort(s) + "'"; }

Status SlurmConfPairError(const std::string& source, const SlurmConfPair& p, const std::string& msg) {
  return InvalidArgument(SlurmConfWhere(source, p.line) + ": " + p.key + "=" + SlurmConfShort(p.value) + ": " + msg);
}

bool ParseSlurmConfInt(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 12) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

// As Slurm's _get_next_line.
std::vector<SlurmConfLine> SlurmConfLines(const std::string& text) {
  std::vector<SlurmConfLine> lines;
  SlurmConfLine pending;
  bool continuing = false;
  int number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++number;
    std::string line;
    for (size_t k = start; k < end; ++k) {
      if (text[k] == '#') {
        if (!line.empty() && line.back() == '\\') {
          line.back() = '#';
          continue;
        }
        break;
      }
      line += text[k];
    }
    while (!line.empty() && IsBlank(line.back())) line.pop_back();
    if (!continuing) pending = SlurmConfLine{};
    continuing = !line.empty() && line.back() == '\\';
    if (continuing) line.pop_back();
    pending.starts.emplace_back(pending.text.size(), number);
    pending.text += line;
    if (!continuing) lines.push_back(std::move(pending));
    if (end == text.size()) break;
    start = end + 1;
  }
  if (continuing) lines.push_back(std::move(pending));  // a trailing '\' at the end of the file
  return lines;
}

// Slurm's key=value pattern.
StatusOr<std::vector<SlurmConfPair>> TokenizeSlurmConfLine(const SlurmConfLine& logical, const std::string& source) {
  const std::string& t = logical.text;
  std::vector<SlurmConfPair> out;
  size_t i = 0;
  while (true) {
    while (i < t.size() && IsBlank(t[i])) ++i;
    if (i == t.size()) return out;
    const size_t key_start = i;
    const int line = logical.LineAt(key_start);
    while (i < t.size() && IsKeyChar(t[i])) ++i;
    size_t eq = i;
    while (eq < t.size() && IsBlank(t[eq])) ++eq;
    if (i == key_start || eq == t.size() || t[eq] != '=') {
      size_t end = key_start;
      while (end < t.size() && !IsBlank(t[end])) ++end;
      return InvalidArgument(SlurmConfWhere(source, line) + ": expected Key=Value, got " +
                             SlurmConfQuote(std::string_view(t).substr(key_start, std::max(end, key_start + 1) - key_start)));
    }
    SlurmConfPair p;
    p.key = t.substr(key_start, i - key_start);
    p.lower = Lower(p.key);
    p.line = line;
    i = eq + 1;
    while (i < t.size() && IsBlank(t[i])) ++i;
    if (i < t.size() && t[i] == '"') {
      const size_t close = t.find('"', i + 1);
      if (close == std::string::npos) {
        return InvalidArgument(SlurmConfWhere(source, line) + ": unterminated '\"' in the value of " + p.key + "=");
      }
      p.value = t.substr(i + 1, close - i - 1);
      i = close + 1;
      if (i < t.size() && !IsBlank(t[i])) {
        return InvalidArgument(SlurmConfWhere(source, line) + ": text after the closing '\"' of " + p.key + "=");
      }
    } else {
      const size_t value_start = i;
      while (i < t.size() && !IsBlank(t[i])) ++i;
      p.value = t.substr(value_start, i - value_start);
    }
    out.push_back(std::move(p));
  }
}

bool IsSlurmConfInclude(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && IsBlank(text[i])) ++i;
  if (text.size() - i < 7 || Lower(std::string_view(text).substr(i, 7)) != "include") return false;
  return i + 7 == text.size() || IsBlank(text[i + 7]);
}

Status SlurmConfOptions::AddLine(const std::vector<SlurmConfPair>& pairs, const std::map<std::string, std::string>& known) {
  std::set<std::string> seen;
  for (const SlurmConfPair& p : pairs) {
    auto k = known.find(p.lower);
    if (k == known.end()) return SlurmConfPairError(source_, p, "not a " + kind_ + " option");
    if (!seen.insert(k->second).second) return SlurmConfPairError(source_, p, "given twice on this line");
    pairs_[k->second] = p;
  }
  return Status::Ok();
}

void SlurmConfOptions::Merge(const SlurmConfOptions& over) {
  for (const auto& [k, p] : over.pairs_) pairs_[k] = p;
}

const SlurmConfPair* SlurmConfOptions::Find(const std::string& key) const {
  auto it = pairs_.find(key);
  return it == pairs_.end() ? nullptr : &it->second;
}

Status SlurmConfOptions::Int(const std::string& key, int64_t* out, int64_t min, int64_t max) const {
  const SlurmConfPair* p = Find(key);
  if (p == nullptr) return Status::Ok();
  int64_t v = 0;
  if (!ParseSlurmConfInt(p->value, &v) || v < min || v > max) {
    return Error(*p, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  *out = v;
  return Status::Ok();
}

Status SlurmConfOptions::Memory(const std::string& key, int64_t* out) const {
  const SlurmConfPair* p = Find(key);
  if (p == nullptr) return Status::Ok();
  StatusOr<int64_t> mb = ParseMemoryMb(p->value);
  if (!mb.ok()) return Error(*p, mb.status().message());
  *out = *mb;
  return Status::Ok();
}

Status SlurmConfOptions::Time(const std::string& key, int64_t* out) const {
  const SlurmConfPair* p = Find(key);
  if (p == nullptr) return Status::Ok();
  StatusOr<int64_t> s = ParseTimeSpec(p->value);
  if (!s.ok()) return Error(*p, s.status().message());
  *out = *s;
  return Status::Ok();
}

Status SlurmConfOptions::Bool(const std::string& key, bool* out) const {
  const SlurmConfPair* p = Find(key);
  if (p == nullptr) return Status::Ok();
  const std::string v = Lower(p->value);
  if (v == "yes" || v == "y" || v == "true" || v == "1" || v == "up") {
    *out = true;
  } else if (v == "no" || v == "n" || v == "false" || v == "0" || v == "down") {
    *out = false;
  } else {
    return Error(*p, "expected YES or NO");
  }
  return Status::Ok();
}

}  // namespace muster
