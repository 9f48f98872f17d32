#include "wire/codec.h"

namespace muster::wire {

StatusOr<bj::value> ParseValue(std::string_view text, std::string_view what) {
  bj::parse_options opt;
  opt.max_depth = 32;
  opt.allow_invalid_utf8 = true;  // names are the users' bytes
  bj::error_code ec;
  bj::value v = bj::parse(bj::string_view(text.data(), text.size()), ec, {}, opt);
  if (ec == bj::error::too_deep) {
    return InvalidArgument(std::string(what) + " nests deeper than " + std::to_string(opt.max_depth) + " levels");
  }
  if (ec) return InvalidArgument(std::string(what) + " is not valid JSON");
  return v;
}

}  // namespace muster::wire
