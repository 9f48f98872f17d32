// What ExpandHostlist accepts, after Slurm's hostlist_create (but every malformed piece is an
// error here, where Slurm guesses): pieces separated by ',', ' ' or '\t' outside brackets; each
// piece is literal text with any number of "[...]" groups, the last group ending the piece
// ("rack[1-2]n[01-04]" is a product, left group slowest); a group holds comma-separated "N" or
// "N-M" items of decimal digits, printed at the width of N. Order and duplicates are kept; an
// empty or blank expression is an empty list. CompressHostlist is Slurm's hostlist_uniq followed
// by hostlist_ranged_string; see BuildRanges for the one place it differs.
#include "model/hostlist.h"

#include "model/name_order.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string_view>
#include <utility>

namespace muster {
namespace {

// Caps that keep a typo ("n[1-10000000000]") or a hostile request (srun -w n[1-999999]) from eating
// the controller's memory and CPU: Slurm's MAX_RANGE, 65,536 hosts, ample for any real cluster.
constexpr uint64_t kMaxHosts = 65'536;
constexpr uint64_t kMaxExpandedChars = uint64_t{4} << 20;
// 18 decimal digits always fit in uint64_t, so range arithmetic cannot overflow.
constexpr size_t kMaxDigits = 18;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Quotes a piece of user input for an error message, shortened so a megabyte of junk stays readable.
std::string Quote(std::string_view s) {
  constexpr size_t kMax = 80;
  if (s.size() <= kMax) return "'" + std::string(s) + "'";
  return "'" + std::string(s.substr(0, kMax)) + "...'";
}

std::string FormatNumber(uint64_t n, size_t width) {
  std::string digits = std::to_string(n);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

size_t DigitCount(uint64_t n) { return std::to_string(n).size(); }

// ---------------------------------------------------------------------------------------------
// Expansion
// ---------------------------------------------------------------------------------------------

struct Range {
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 0;  // Slurm: the width of a range is the length of its low bound ("08-10" -> 2)
};

// One part of a piece: literal text, or the ranges of one bracket group.
struct Segment {
  std::string text;
  std::vector<Range> ranges;
  bool is_range = false;
};

StatusOr<uint64_t> ParseNumber(std::string_view digits, std::string_view item, std::string_view piece) {
  if (digits.empty()) {
    return InvalidArgument("missing number in range " + Quote(item) + " of " + Quote(piece));
  }
  for (char c : digits) {
    if (!IsDigit(c)) {
      return InvalidArgument("non-digit '" + std::string(1, c) + "' in range " + Quote(item) + " of " +
                             Quote(piece));
    }
  }
  if (digits.size() > kMaxDigits) {
    return InvalidArgument("number " + Quote(digits) + " in " + Quote(piece) + " has more than " +
                           std::to_string(kMaxDigits) + " digits");
  }
  return std::stoull(std::string(digits));
}

// Parses a bracket body such as "001-016,020" into ranges; returns the number of hosts it names.
StatusOr<uint64_t> ParseRangeList(std::string_view body, std::string_view piece, std::vector<Range>* out) {
  uint64_t count = 0;
  size_t start = 0;
  while (true) {
    size_t comma = body.find(',', start);
    std::string_view item = body.substr(start, comma == std::string_view::npos ? body.npos : comma - start);
    if (item.empty()) {
      return InvalidArgument("empty item in range list '[" + std::string(body) + "]' of " + Quote(piece));
    }
    size_t dash = item.find('-');
    Range range;
    ASSIGN_OR_RETURN(range.lo, ParseNumber(item.substr(0, dash), item, piece));
    range.width = dash == std::string_view::npos ? item.size() : dash;
    range.hi = range.lo;
    if (dash != std::string_view::npos) {
      ASSIGN_OR_RETURN(range.hi, ParseNumber(item.substr(dash + 1), item, piece));
      if (range.hi < range.lo) {
        return InvalidArgument("reversed range " + Quote(item) + " in " + Quote(piece));
      }
    }
    count += range.hi - range.lo + 1;  // both below 10^18: no overflow
    if (count > kMaxHosts) {
      return InvalidArgument(Quote(piece) + " names more than " + std::to_string(kMaxHosts) + " hosts");
    }
    out->push_back(range);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return count;
}

// Splits one piece ("rack[1-2]n[01-04]") into literal and bracket segments. Slurm expands every
// bracket group (left one varying slowest) but allows no text after the last ']'. Sets the number
// of hosts and the length of the longest one.
Status ParsePiece(std::string_view piece, std::vector<Segment>* segments, uint64_t* count, uint64_t* max_len) {
  *count = 1;
  *max_len = 0;
  size_t i = 0;
  while (i < piece.size()) {
    size_t open = piece.find_first_of("[]", i);
    if (open != std::string_view::npos && piece[open] == ']') {
      return InvalidArgument("unmatched ']' in " + Quote(piece));
    }
    if (open == std::string_view::npos) {
      if (!segments->empty() && segments->back().is_range) {
        return InvalidArgument("text " + Quote(piece.substr(i)) + " after ']' in " + Quote(piece) +
                               " (a range must end the host name)");
      }
      segments->push_back(Segment{std::string(piece.substr(i)), {}, false});
      *max_len += piece.size() - i;
      break;
    }
    if (open > i) segments->push_back(Segment{std::string(piece.substr(i, open - i)), {}, false});
    *max_len += open - i;
    size_t close = piece.find_first_of("[]", open + 1);
    if (close == std::string_view::npos) {
      return InvalidArgument("unterminated '[' in " + Quote(piece));
    }
    if (piece[close] == '[') return InvalidArgument("nested '[' in " + Quote(piece));
    Segment seg;
    seg.is_range = true;
    ASSIGN_OR_RETURN(uint64_t n, ParseRangeList(piece.substr(open + 1, close - open - 1), piece, &seg.ranges));
    *count *= n;  // both factors are at most kMaxHosts, so the product fits
    size_t widest = 0;
    for (const Range& r : seg.ranges) widest = std::max({widest, r.width, DigitCount(r.hi)});
    *max_len += widest;
    if (*count > kMaxHosts) {
      return InvalidArgument(Quote(piece) + " names more than " + std::to_string(kMaxHosts) + " hosts");
    }
    segments->push_back(std::move(seg));
    i = close + 1;
  }
  return Status::Ok();
}

// Appends the hosts of one parsed piece to `out`, as a cartesian product of its segments.
void ExpandSegments(const std::vector<Segment>& segments, std::vector<std::string>* out) {
  std::vector<std::string> partial{""};
  for (const Segment& seg : segments) {
    if (!seg.is_range) {
      for (std::string& p : partial) p += seg.text;
      continue;
    }
    std::vector<std::string> next;
    for (const std::string& p : partial) {
      for (const Range& r : seg.ranges) {
        for (uint64_t n = r.lo;; ++n) {
          next.push_back(p + FormatNumber(n, r.width));
          if (n == r.hi) break;
        }
      }
    }
    partial = std::move(next);
  }
  for (std::string& host : partial) out->push_back(std::move(host));
}

// Splits at top-level separators. Like Slurm, commas, spaces and tabs outside brackets separate
// hosts; unlike Slurm, a comma with nothing before or after it is an error, not silently skipped.
StatusOr<std::vector<std::string_view>> SplitPieces(std::string_view expr) {
  std::vector<std::string_view> pieces;
  bool item_has_piece = false;  // since the last top-level comma
  size_t start = 0;
  bool in_bracket = false;
  auto flush = [&](size_t end) {
    if (end > start) {
      pieces.push_back(expr.substr(start, end - start));
      item_has_piece = true;
    }
  };
  for (size_t i = 0; i < expr.size(); ++i) {
    char c = expr[i];
    if (c == '[') in_bracket = true;
    if (c == ']') in_bracket = false;
    if (in_bracket || (c != ',' && !IsBlank(c))) continue;
    flush(i);
    start = i + 1;
    if (c == ',') {
      if (!item_has_piece) {
        return InvalidArgument("empty host name before ',' at offset " + std::to_string(i) + " in " +
                               Quote(expr));
      }
      item_has_piece = false;
    }
  }
  flush(expr.size());
  if (!item_has_piece) return InvalidArgument("empty host name after the last ',' in " + Quote(expr));
  return pieces;
}

// ---------------------------------------------------------------------------------------------
// Compression
// ---------------------------------------------------------------------------------------------

// A run of numbers printed at one width; `lo` is what Slurm sorts and what sets the width on expansion.
struct OutRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 1;
  std::string LoText() const { return FormatNumber(lo, width); }
};

// Numbers sharing one prefix, split by how they are written.
struct PrefixGroup {
  std::map<size_t, std::vector<uint64_t>> padded;  // width -> numbers written with leading zeros
  std::vector<uint64_t> natural;                   // numbers written without leading zeros
};

void AppendRuns(std::vector<uint64_t> nums, size_t width, std::vector<OutRange>* out) {
  std::sort(nums.begin(), nums.end());
  nums.erase(std::unique(nums.begin(), nums.end()), nums.end());
  for (size_t i = 0; i < nums.size();) {
    size_t j = i;
    while (j + 1 < nums.size() && nums[j + 1] == nums[j] + 1) ++j;
    out->push_back(OutRange{nums[i], nums[j], width});
    i = j + 1;
  }
}

// Ranges for one prefix, in Slurm's order. A zero-padded width w and plain numbers print alike from
// 10^(w-1) up, so plain numbers join a padded group only to continue its run across that boundary
// ("n099,n100" -> "n[099-100]", as Slurm's width_equiv merge does); otherwise they stay plain
// ("n08,n9,n10" -> "n[9-10,08]"). Slurm decides such mixes by input order (its width check
// rewrites widths while merging) and can even print a host twice (the hosts of "n[08-10],n[8-10]"
// come out as "n[8-10,08-10]" there, n10 twice); here the result depends only on the set of
// names, and each name appears once ("n[8-9,08-10]").
std::vector<OutRange> BuildRanges(PrefixGroup group) {
  std::vector<uint64_t>& natural = group.natural;
  std::sort(natural.begin(), natural.end());
  natural.erase(std::unique(natural.begin(), natural.end()), natural.end());
  std::vector<OutRange> ranges;
  for (auto& [width, nums] : group.padded) {
    uint64_t boundary = 1;
    for (size_t k = 1; k < width; ++k) boundary *= 10;
    if (std::find(nums.begin(), nums.end(), boundary - 1) != nums.end()) {
      auto first = std::lower_bound(natural.begin(), natural.end(), boundary);
      auto last = first;
      uint64_t expect = boundary;
      while (last != natural.end() && *last == expect) {
        ++last;
        ++expect;
      }
      nums.insert(nums.end(), first, last);
      natural.erase(first, last);
    }
    AppendRuns(std::move(nums), width, &ranges);
  }
  AppendRuns(std::move(natural), 1, &ranges);
  // Slurm's hostrange_cmp orders width-compatible ranges by low bound and others by width; on these
  // ranges that is exactly (length of the printed low bound, low bound).
  std::sort(ranges.begin(), ranges.end(), [](const OutRange& a, const OutRange& b) {
    size_t la = a.LoText().size(), lb = b.LoText().size();
    return la != lb ? la < lb : a.lo < b.lo;
  });
  return ranges;
}

}  // namespace

StatusOr<std::vector<std::string>> ExpandHostlist(const std::string& expr) {
  std::vector<std::string> hosts;
  if (std::all_of(expr.begin(), expr.end(), IsBlank)) return hosts;
  ASSIGN_OR_RETURN(std::vector<std::string_view> pieces, SplitPieces(expr));
  uint64_t total = 0;
  uint64_t chars = 0;
  std::vector<std::vector<Segment>> parsed(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    uint64_t count = 0, max_len = 0;
    RETURN_IF_ERROR(ParsePiece(pieces[i], &parsed[i], &count, &max_len));
    total += count;
    chars += count * max_len;  // at most 10^6 hosts times the piece's length: no overflow
    if (total > kMaxHosts) {
      return InvalidArgument(Quote(expr) + " names more than " + std::to_string(kMaxHosts) + " hosts");
    }
    if (chars > kMaxExpandedChars) {
      return InvalidArgument(Quote(expr) + " expands to more than " + std::to_string(kMaxExpandedChars) +
                             " characters");
    }
  }
  hosts.reserve(total);
  for (const std::vector<Segment>& segments : parsed) ExpandSegments(segments, &hosts);
  return hosts;
}

std::string CompressHostlist(const std::vector<std::string>& hosts) {
  // Key: (prefix, has a numeric suffix). Names without one are printed alone, before the ranges of
  // the same prefix, as Slurm's hostrange_prefix_cmp orders "singlehost" ranges first.
  auto key_less = [](const std::pair<std::string, bool>& a, const std::pair<std::string, bool>& b) {
    if (int c = NaturalCompare(a.first, b.first); c != 0) return c < 0;
    return a.second < b.second;
  };
  std::map<std::pair<std::string, bool>, PrefixGroup, decltype(key_less)> groups(key_less);
  for (const std::string& host : hosts) {
    if (host.empty()) continue;
    size_t start = host.size();
    while (start > 0 && IsDigit(host[start - 1])) --start;
    size_t len = host.size() - start;
    if (len == 0 || len > kMaxDigits) {
      groups[{host, false}];  // no usable numeric suffix: the whole name stands alone
      continue;
    }
    uint64_t num = std::stoull(host.substr(start));
    PrefixGroup& group = groups[{host.substr(0, start), true}];
    if (len > DigitCount(num)) {
      group.padded[len].push_back(num);
    } else {
      group.natural.push_back(num);
    }
  }

  std::string out;
  for (auto& [key, group] : groups) {
    if (!out.empty()) out += ',';
    out += key.first;
    if (!key.second) continue;
    std::vector<OutRange> ranges = BuildRanges(std::move(group));
    bool brackets = ranges.size() > 1 || ranges[0].lo != ranges[0].hi;
    if (brackets) out += '[';
    for (size_t i = 0; i < ranges.size(); ++i) {
      if (i > 0) out += ',';
      out += ranges[i].LoText();
      if (ranges[i].hi != ranges[i].lo) out += '-' + FormatNumber(ranges[i].hi, ranges[i].width);
    }
    if (brackets) out += ']';
  }
  return out;
}

}  // namespace muster
