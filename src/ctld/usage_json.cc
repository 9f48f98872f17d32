#include "ctld/usage_json.h"

#include <map>

#include <boost/json.hpp>

#include "base/pretty_json.h"

namespace muster {

namespace bj = boost::json;

std::string UsageJson(const PriorityPolicy::Saved& saved) {
  bj::array usage;
  for (const UsageLedger::Stored& s : saved.usage) {
    usage.push_back(bj::object{{"account", s.account}, {"user", s.user}, {"amount", s.amount}, {"at", s.at}});
  }
  bj::array charged;
  for (const auto& [job, t] : saved.charged_through) charged.push_back(bj::array{job, t});
  return PrettyJson(bj::object{{"usage", std::move(usage)}, {"charged_through", std::move(charged)}}, -1);
}

namespace {

Status Malformed(const std::string& what) { return InvalidArgument("stored usage is malformed: " + what); }

}  // namespace

StatusOr<PriorityPolicy::Saved> ParseUsageJson(std::string_view text) {
  bj::error_code ec;
  const bj::value j = bj::parse(bj::string_view(text.data(), text.size()), ec);
  if (ec) return Malformed("not JSON: " + ec.message());
  const bj::object* o = j.if_object();
  const bj::value* usage = o == nullptr ? nullptr : o->if_contains("usage");
  const bj::value* charged = o == nullptr ? nullptr : o->if_contains("charged_through");
  if (usage == nullptr || !usage->is_array()) return Malformed("'usage' must be a list");
  if (charged == nullptr || !charged->is_array()) return Malformed("'charged_through' must be a list");
  PriorityPolicy::Saved out;
  for (const bj::value& e : usage->get_array()) {
    const bj::object* u = e.if_object();
    const bj::value* account = u == nullptr ? nullptr : u->if_contains("account");
    const bj::value* user = u == nullptr ? nullptr : u->if_contains("user");
    const bj::value* amount = u == nullptr ? nullptr : u->if_contains("amount");
    const bj::value* at = u == nullptr ? nullptr : u->if_contains("at");
    if (account == nullptr || !account->is_string() || user == nullptr || !user->is_string() || amount == nullptr ||
        !amount->is_number() || at == nullptr || !(at->is_int64() || at->is_uint64())) {
      return Malformed("each entry of 'usage' needs account, user, amount and at");
    }
    bj::error_code nec;
    UsageLedger::Stored s{std::string(account->get_string()), std::string(user->get_string()),
                          amount->to_number<double>(nec), at->to_number<int64_t>(nec)};
    if (nec) return Malformed("a number of 'usage' is out of range");
    out.usage.push_back(std::move(s));
  }
  std::map<int64_t, int64_t> by_job;  // a job listed twice: the last entry, as before
  for (const bj::value& e : charged->get_array()) {
    const bj::array* pair = e.if_array();
    if (pair == nullptr || pair->size() < 2 || !(*pair)[0].is_int64() || !(*pair)[1].is_int64()) {
      return Malformed("each entry of 'charged_through' is [job, time]");
    }
    by_job[(*pair)[0].get_int64()] = (*pair)[1].get_int64();
  }
  out.charged_through.assign(by_job.begin(), by_job.end());
  return out;
}

}  // namespace muster
