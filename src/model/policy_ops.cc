#include "model/policy_ops.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include <boost/json.hpp>

#include "base/pretty_json.h"

#include "base/strings.h"
#include "model/job_request.h"

namespace muster {

namespace bj = boost::json;

namespace {

StatusOr<int64_t> Int(const std::string& key, const std::string& v, int64_t min) {
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0 || n < min) {
    return InvalidArgument(key + ": invalid value '" + v + "' (expected a whole number" +
                           (min < 0 ? ", -1 to clear)" : ")"));
  }
  return static_cast<int64_t>(n);
}

StatusOr<int64_t> Time(const std::string& key, const std::string& v) {
  if (v == "-1") return kUnlimited;
  StatusOr<int64_t> t = ParseTimeSpec(v);
  if (!t.ok()) return InvalidArgument(key + ": " + t.status().message());
  return *t;
}

StatusOr<int64_t> GpusOf(const std::string& key, const std::string& v) {
  StatusOr<TresAmounts> t = ParseTres(v);
  if (!t.ok()) return InvalidArgument(key + ": " + t.status().message());
  if (t->cpus != kUnlimited || t->memory_mb != kUnlimited) return InvalidArgument(key + ": only gres/gpu is supported here");
  return t->gpus;
}

Status SetAccountField(const std::string& key, const std::string& v, Account* a, const std::vector<std::string>& known) {
  const std::string k = Lower(key);
  if (k == "parent") {
    a->parent = v == "root" ? "" : v;
  } else if (k == "fairshare") {
    ASSIGN_OR_RETURN(a->shares, Int(key, v, 0));
  } else if (k == "quota") {
    StatusOr<TresAmounts> t = ParseTres(v);
    if (!t.ok()) return InvalidArgument(key + ": " + t.status().message());
    a->quota = *t;
  } else if (k == "grptres") {
    StatusOr<TresAmounts> t = ParseTres(v);
    if (!t.ok()) return InvalidArgument(key + ": " + t.status().message());
    a->limit = *t;
  } else if (k == "overquotaweight") {
    char* end = nullptr;
    const double w = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(w >= 0) || w > 1e9) return InvalidArgument(key + ": invalid weight '" + v + "'");
    a->over_quota_weight = w;
  } else if (k == "maxjobs") {
    ASSIGN_OR_RETURN(a->max_jobs, Int(key, v, -1));
  } else if (k == "grpjobs") {
    ASSIGN_OR_RETURN(a->grp_jobs, Int(key, v, -1));
  } else if (k == "qos") {
    a->qos = Split(v, ',');
  } else if (k == "maxwall") {
    ASSIGN_OR_RETURN(a->max_wall_s, Time(key, v));
  } else if (k == "maxtresperuser") {
    ASSIGN_OR_RETURN(a->max_gpus_per_user, GpusOf(key, v));
  } else {
    std::string list;
    for (const std::string& s : known) list += (list.empty() ? "" : ", ") + s;
    return InvalidArgument("unknown key '" + key + "' for an account (known: " + list + ")");
  }
  return Status::Ok();
}

const std::vector<std::string> kAccountKeys = {"Parent",  "Fairshare", "Quota",   "OverQuotaWeight", "GrpTRES",
                                               "MaxJobs", "GrpJobs",   "MaxWall", "MaxTRESPerUser",  "QOS"};
const std::vector<std::string> kQosKeys = {"Priority",      "Preempt",     "PreemptMode",    "GraceTime",
                                           "PreemptExemptTime", "MaxTRESPerUser", "MaxTRESPerJob",
                                           "MaxJobsPerUser", "MaxWall",     "GrpTRES"};

Status SetQosField(const std::string& key, const std::string& v, Qos* q) {
  const std::string k = Lower(key);
  if (k == "priority") {
    ASSIGN_OR_RETURN(q->priority, Int(key, v, 0));
    if (q->priority > 1000000000) return InvalidArgument(key + ": at most 1000000000");
  } else if (k == "preempt") {
    q->preempt = Split(v, ',');
  } else if (k == "preemptmode") {
    StatusOr<PreemptMode> m = ParsePreemptMode(v);
    if (!m.ok()) return InvalidArgument(key + ": " + m.status().message());
    q->preempt_mode = *m;
    q->has_preempt_mode = true;
  } else if (k == "gracetime") {
    ASSIGN_OR_RETURN(q->grace_time_s, Int(key, v, -1));
  } else if (k == "preemptexempttime") {
    ASSIGN_OR_RETURN(q->preempt_exempt_time_s, Time(key, v));
  } else if (k == "maxtresperuser") {
    ASSIGN_OR_RETURN(q->max_gpus_per_user, GpusOf(key, v));
  } else if (k == "maxtresperjob") {
    ASSIGN_OR_RETURN(q->max_gpus_per_job, GpusOf(key, v));
  } else if (k == "maxjobsperuser") {
    ASSIGN_OR_RETURN(q->max_jobs_per_user, Int(key, v, -1));
  } else if (k == "maxwall") {
    ASSIGN_OR_RETURN(q->max_wall_s, Time(key, v));
  } else if (k == "grptres") {
    ASSIGN_OR_RETURN(q->grp_gpus, GpusOf(key, v));
  } else {
    std::string list;
    for (const std::string& s : kQosKeys) list += (list.empty() ? "" : ", ") + s;
    return InvalidArgument("unknown key '" + key + "' for a QOS (known: " + list + ")");
  }
  return Status::Ok();
}

}  // namespace

bool MayUseQos(const AccountTree& tree, const std::string& account, const std::string& qos) {
  if (qos.empty()) return true;
  for (const Account* a : tree.Path(account)) {
    if (a->qos.empty()) continue;
    return std::find(a->qos.begin(), a->qos.end(), qos) != a->qos.end();
  }
  return true;
}

Status ValidateQosAccess(const AccountTree& tree, const std::vector<Qos>& qos) {
  for (const Account& a : tree.accounts) {
    for (const std::string& q : a.qos) {
      if (q != kDefaultQosName && FindQos(qos, q) == nullptr) {
        return InvalidArgument("account '" + a.name + "': QOS '" + q + "' is not defined");
      }
    }
  }
  return Status::Ok();
}

StatusOr<TresAmounts> ParseTres(const std::string& text) {
  TresAmounts t;
  for (const std::string& item : Split(text, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return InvalidArgument("invalid TRES '" + item + "' (expected e.g. gres/gpu=8)");
    const std::string name = Lower(item.substr(0, eq));
    const std::string value = item.substr(eq + 1);
    if (name == "mem") {
      if (value == "-1") {
        t.memory_mb = kUnlimited;
      } else {
        StatusOr<int64_t> mb = ParseMemoryMb(value);
        if (!mb.ok()) return InvalidArgument("mem: " + mb.status().message());
        t.memory_mb = *mb;
      }
      continue;
    }
    ASSIGN_OR_RETURN(int64_t n, Int(name, value, -1));
    if (name == "gres/gpu" || name == "gpu") {
      t.gpus = n;
    } else if (name == "cpu") {
      t.cpus = n;
    } else {
      return InvalidArgument("unknown TRES '" + name + "' (known: cpu, mem, gres/gpu)");
    }
  }
  return t;
}

std::string FormatTres(const TresAmounts& t) {
  std::string s;
  auto add = [&](const std::string& item) { s += (s.empty() ? "" : ",") + item; };
  if (t.cpus != kUnlimited) add("cpu=" + std::to_string(t.cpus));
  if (t.memory_mb != kUnlimited) {
    add("mem=" + (t.memory_mb % 1024 == 0 ? std::to_string(t.memory_mb / 1024) + "G" : std::to_string(t.memory_mb) + "M"));
  }
  if (t.gpus != kUnlimited) add("gres/gpu=" + std::to_string(t.gpus));
  return s;
}

Status ApplyPolicyOp(const PolicyOp& op, AccountTree* tree_out, std::vector<Qos>* qos_out) {
  AccountTree tree = *tree_out;
  std::vector<Qos> qos = *qos_out;
  const std::string verb = Lower(op.verb), entity = Lower(op.entity);
  if (op.name.empty()) return InvalidArgument("no " + entity + " name given");
  auto field = [&](const std::string& key) -> const std::string* {
    for (const auto& [k, v] : op.fields) {
      if (Lower(k) == Lower(key)) return &v;
    }
    return nullptr;
  };
  if (entity == "account") {
    auto it = std::find_if(tree.accounts.begin(), tree.accounts.end(), [&](const Account& a) { return a.name == op.name; });
    if (verb == "add") {
      if (it != tree.accounts.end()) return Status(StatusCode::kAlreadyExists, "account '" + op.name + "' already exists");
      Account a;
      a.name = op.name;
      for (const auto& [k, v] : op.fields) RETURN_IF_ERROR(SetAccountField(k, v, &a, kAccountKeys));
      tree.accounts.push_back(std::move(a));
    } else if (verb == "modify") {
      if (it == tree.accounts.end()) return NotFound("account '" + op.name + "' does not exist");
      for (const auto& [k, v] : op.fields) RETURN_IF_ERROR(SetAccountField(k, v, &*it, kAccountKeys));
    } else if (verb == "delete") {
      if (it == tree.accounts.end()) return NotFound("account '" + op.name + "' does not exist");
      for (const Account& a : tree.accounts) {
        if (a.parent == op.name) return FailedPrecondition("account '" + op.name + "' has sub-account '" + a.name + "'");
      }
      tree.accounts.erase(it);
      std::erase_if(tree.users, [&](const UserAssociation& u) { return u.account == op.name; });
    } else {
      return InvalidArgument("unknown verb '" + op.verb + "' (known: add, modify, delete)");
    }
  } else if (entity == "user") {
    const std::string* acct = field("Account");
    const std::string account = acct == nullptr || *acct == "root" ? "" : *acct;
    auto it = std::find_if(tree.users.begin(), tree.users.end(),
                           [&](const UserAssociation& u) { return u.user == op.name && u.account == account; });
    for (const auto& [k, v] : op.fields) {
      if (Lower(k) != "account" && Lower(k) != "fairshare") {
        return InvalidArgument("unknown key '" + k + "' for a user (known: Account, Fairshare)");
      }
    }
    int64_t shares = 1;
    if (const std::string* fs = field("Fairshare")) {
      ASSIGN_OR_RETURN(shares, Int("Fairshare", *fs, 0));
    }
    if (verb == "add") {
      if (acct == nullptr) return InvalidArgument("add user: Account= is required");
      if (it != tree.users.end()) return Status(StatusCode::kAlreadyExists, "user '" + op.name + "' is already in account '" + *acct + "'");
      tree.users.push_back(UserAssociation{op.name, account, shares});
    } else if (verb == "modify") {
      if (it == tree.users.end()) return NotFound("user '" + op.name + "' has no association with account '" + account + "'");
      it->shares = shares;
    } else if (verb == "delete") {
      const size_t before = tree.users.size();
      std::erase_if(tree.users, [&](const UserAssociation& u) {
        return u.user == op.name && (acct == nullptr || u.account == account);
      });
      if (tree.users.size() == before) return NotFound("user '" + op.name + "' has no such association");
    } else {
      return InvalidArgument("unknown verb '" + op.verb + "' (known: add, modify, delete)");
    }
  } else if (entity == "qos") {
    auto it = std::find_if(qos.begin(), qos.end(), [&](const Qos& q) { return q.name == op.name; });
    if (verb == "add") {
      if (it != qos.end()) return Status(StatusCode::kAlreadyExists, "QOS '" + op.name + "' already exists");
      Qos q;
      q.name = op.name;
      for (const auto& [k, v] : op.fields) RETURN_IF_ERROR(SetQosField(k, v, &q));
      qos.push_back(std::move(q));
      // Jobs without -q are "normal": it exists once any QOS does.
      if (FindQos(qos, kDefaultQosName) == nullptr) qos.push_back(Qos{.name = kDefaultQosName});
    } else if (verb == "modify") {
      if (it == qos.end()) return NotFound("QOS '" + op.name + "' does not exist");
      for (const auto& [k, v] : op.fields) RETURN_IF_ERROR(SetQosField(k, v, &*it));
    } else if (verb == "delete") {
      if (it == qos.end()) return NotFound("QOS '" + op.name + "' does not exist");
      if (op.name == kDefaultQosName) return FailedPrecondition("QOS 'normal' is every job's default; it stays");
      for (const Qos& q : qos) {
        if (std::find(q.preempt.begin(), q.preempt.end(), op.name) != q.preempt.end()) {
          return FailedPrecondition("QOS '" + q.name + "' preempts '" + op.name + "'; change it first");
        }
      }
      qos.erase(it);
    } else {
      return InvalidArgument("unknown verb '" + op.verb + "' (known: add, modify, delete)");
    }
  } else {
    return InvalidArgument("unknown entity '" + op.entity + "' (known: account, user, qos)");
  }
  RETURN_IF_ERROR(tree.Validate());
  RETURN_IF_ERROR(ValidateQosList(qos));
  RETURN_IF_ERROR(ValidateQosAccess(tree, qos));
  *tree_out = std::move(tree);
  *qos_out = std::move(qos);
  return Status::Ok();
}

// Stored as the earlier codec wrote it ([{"entity":..,"fields":[[k,v],..],"name":..,"verb":..}],
// keys sorted), so a change log saved before reads, and compares, the same.
std::string PolicyOpsToJson(const std::vector<PolicyOp>& ops) {
  bj::array a;
  for (const PolicyOp& op : ops) {
    bj::array fields;
    for (const auto& [k, v] : op.fields) fields.push_back(bj::array{bj::string(k), bj::string(v)});
    a.push_back(bj::object{{"verb", op.verb}, {"entity", op.entity}, {"name", op.name}, {"fields", std::move(fields)}});
  }
  return PrettyJson(a, -1);
}

StatusOr<std::vector<PolicyOp>> PolicyOpsFromJson(const std::string& text) {
  bj::parse_options opt;
  opt.allow_invalid_utf8 = true;
  bj::error_code ec;
  const bj::value a = bj::parse(text, ec, {}, opt);
  if (ec || !a.is_array()) return InvalidArgument("stored policy changes: not a JSON array");
  std::vector<PolicyOp> ops;
  const auto text_of = [](const bj::object& o, const char* key) -> const bj::string* {
    const bj::value* v = o.if_contains(key);
    return v == nullptr ? nullptr : v->if_string();
  };
  for (const bj::value& j : a.get_array()) {
    const bj::object* o = j.if_object();
    const bj::string* verb = o == nullptr ? nullptr : text_of(*o, "verb");
    const bj::string* entity = o == nullptr ? nullptr : text_of(*o, "entity");
    const bj::string* name = o == nullptr ? nullptr : text_of(*o, "name");
    const bj::value* fields = o == nullptr ? nullptr : o->if_contains("fields");
    if (verb == nullptr || entity == nullptr || name == nullptr || fields == nullptr || !fields->is_array()) {
      return InvalidArgument("stored policy changes: malformed entry " + PrettyJson(j, -1));
    }
    PolicyOp op{std::string(*verb), std::string(*entity), std::string(*name), {}};
    for (const bj::value& f : fields->get_array()) {
      const bj::array* kv = f.if_array();
      if (kv == nullptr || kv->size() != 2 || !(*kv)[0].is_string() || !(*kv)[1].is_string()) {
        return InvalidArgument("stored policy changes: malformed field " + PrettyJson(f, -1));
      }
      op.fields.emplace_back(std::string((*kv)[0].get_string()), std::string((*kv)[1].get_string()));
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

}  // namespace muster
