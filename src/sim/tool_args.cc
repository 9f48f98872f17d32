#include "sim/tool_args.h"

namespace muster {

StatusOr<ToolLine> ReadToolLine(OptionTable table, const std::vector<std::string>& args,
                                const std::function<Status(const OptionOccurrence&)>& apply) {
  static constexpr GetoptStyle kStyle{};  // no program: the tool adds its own name
  ToolLine line;
  StatusOr<size_t> first = Getopt(table, args, kStyle, [&](const OptionOccurrence& o) -> Status {
    switch (o.spec->use) {
      case OptionUse::kMeta:
        line.help = true;
        return Status(StatusCode::kOutOfRange, "");  // stops the reading; not an error
      case OptionUse::kIgnored:
        return Status::Ok();
      case OptionUse::kUnsupported:
        return InvalidArgument("--" + o.spec->Canonical() + " is not supported");
      case OptionUse::kOwn:
      case OptionUse::kResource:
      case OptionUse::kJob:
        return apply(o);
    }
    return Status::Ok();
  });
  if (line.help) return line;
  if (!first.ok()) return first.status();
  line.operands.assign(args.begin() + static_cast<std::ptrdiff_t>(*first), args.end());
  return line;
}

Status RefuseToolOperands(const ToolLine& line) {
  if (line.operands.empty()) return Status::Ok();
  return InvalidArgument("unexpected argument '" + line.operands[0] + "'");
}

}  // namespace muster
