#include "model/option_engine.h"

#include <utility>

namespace muster {
namespace {

Status GetoptError(const GetoptStyle& style, const std::string& line) {
  if (style.program.empty()) return InvalidArgument(line + std::string(style.end));
  const std::string program(style.program);
  return InvalidArgument(program + ": " + line + "\nTry \"" + program + " --help\" for more information" +
                         std::string(style.end));
}

std::string Quoted(const GetoptStyle& style, std::string_view s) {
  if (style.quote_limit == 0 || s.size() <= style.quote_limit) return "'" + std::string(s) + "'";
  return "'" + std::string(s.substr(0, style.quote_limit)) + "...'";
}

const OptionSpec* FindShort(OptionTable table, char c) {
  for (const OptionSpec& o : table) {
    if (o.short_name != 0 && o.short_name == c) return &o;
  }
  return nullptr;
}

// An exact name, else a prefix whose options all mean the same (aliases with one argument kind).
StatusOr<const OptionSpec*> FindLong(OptionTable table, std::string_view name, const std::string& arg,
                                     const GetoptStyle& style) {
  std::vector<const OptionSpec*> matches;
  for (const OptionSpec& o : table) {
    const std::string_view full(o.name);
    if (full.empty()) continue;  // a short option alone
    if (full == name) return &o;
    if (!name.empty() && full.substr(0, name.size()) == name) matches.push_back(&o);
  }
  if (matches.empty()) return GetoptError(style, "unrecognized option " + Quoted(style, arg));
  const auto same = [](const OptionSpec* a, const OptionSpec* b) {
    return a->Canonical() == b->Canonical() && a->arg == b->arg;
  };
  for (const OptionSpec* m : matches) {
    if (!same(m, matches[0])) {
      // As glibc lists them: the first match, and each one that differs from it (its aliases do not).
      std::string list;
      for (const OptionSpec* c : matches) {
        if (c == matches[0] || !same(c, matches[0])) list += " '--" + std::string(c->name) + "'";
      }
      const std::string shown = style.ambiguity_quotes_argument ? arg : "--" + std::string(name);
      return GetoptError(style, "option " + Quoted(style, shown) + " is ambiguous; possibilities:" + list);
    }
  }
  return matches[0];
}

}  // namespace

std::string OptionOccurrence::CanonicalArg() const {
  std::string s = "--" + spec->Canonical();
  if (value) s += "=" + *value;
  return s;
}

StatusOr<size_t> Getopt(OptionTable table, const std::vector<std::string>& args, const GetoptStyle& style,
                        const std::function<Status(const OptionOccurrence&)>& each,
                        std::vector<std::string>* operands) {
  if (style.permute && operands == nullptr) return Internal("Getopt: a permuting command line needs `operands`");
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.size() < 2 || a[0] != '-') {
      if (!style.permute) break;
      operands->push_back(a);
      continue;
    }
    if (a[1] == '-') {
      const size_t eq = a.find('=');
      const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      ASSIGN_OR_RETURN(const OptionSpec* spec, FindLong(table, name, a, style));
      OptionOccurrence o{spec, std::nullopt};
      const std::string shown = "--" + std::string(spec->name);
      if (eq != std::string::npos) {
        if (spec->arg == OptionArg::kNone) {
          return GetoptError(style, "option '" + shown + "' doesn't allow an argument");
        }
        o.value = a.substr(eq + 1);
      } else if (spec->arg == OptionArg::kRequired) {
        if (i + 1 >= args.size()) return GetoptError(style, "option '" + shown + "' requires an argument");
        o.value = args[++i];
      }
      RETURN_IF_ERROR(each(o));
      continue;
    }
    for (size_t k = 1; k < a.size(); ++k) {  // a cluster of short options
      const OptionSpec* spec = FindShort(table, a[k]);
      if (spec == nullptr) return GetoptError(style, "invalid option -- '" + std::string(1, a[k]) + "'");
      OptionOccurrence o{spec, std::nullopt};
      if (spec->arg == OptionArg::kNone) {
        RETURN_IF_ERROR(each(o));
        continue;
      }
      if (k + 1 < a.size()) {
        o.value = a.substr(k + 1);
      } else if (spec->arg == OptionArg::kRequired) {
        if (i + 1 >= args.size()) {
          return GetoptError(style, "option requires an argument -- '" + std::string(1, a[k]) + "'");
        }
        o.value = args[++i];
      }
      RETURN_IF_ERROR(each(o));
      break;  // the argument took the rest of the word
    }
  }
  if (style.permute) {
    operands->insert(operands->end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
    return args.size();
  }
  return i;
}

StatusOr<ParsedOptions> Getopt(OptionTable table, const std::vector<std::string>& args, const GetoptStyle& style) {
  ParsedOptions parsed;
  ASSIGN_OR_RETURN(parsed.first_operand, Getopt(
                                             table, args, style,
                                             [&parsed](const OptionOccurrence& o) {
                                               parsed.options.push_back(o);
                                               return Status::Ok();
                                             },
                                             &parsed.operands));
  if (!style.permute) {
    parsed.operands.assign(args.begin() + static_cast<std::ptrdiff_t>(parsed.first_operand), args.end());
  }
  return parsed;
}

std::vector<OptionRow> ListOptions(OptionTable table) {
  std::vector<OptionRow> rows;
  for (const OptionSpec& o : table) {
    OptionRow row;
    if (*o.name != '\0') row.name = "--" + std::string(o.name);
    if (o.short_name != 0) row.short_name = std::string("-") + o.short_name;
    static constexpr const char* kArgs[] = {"none", "required", "optional"};
    static constexpr const char* kUses[] = {"resource", "own", "meta", "ignored", "unsupported", "job"};
    row.argument = kArgs[static_cast<int>(o.arg)];
    row.state = kUses[static_cast<int>(o.use)];
    if (o.canonical != nullptr) row.alias_of = "--" + std::string(o.canonical);
    if (o.note != nullptr) row.note = o.note;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace muster
