// sreport's answer (GET /v1/reports/usage?start=&end=): the cluster's figures per TRES and the
// allocated seconds of each (user, account) over the period (report/usage_report.h computes them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wire/codec.h"

namespace muster {

// One TRES of the cluster; seconds of TRES.
struct UsageTresAnswer {
  using WireRecord = void;
  std::string tres;  // "cpu", "gres/gpu"
  int64_t count = 0;
  int64_t alloc_s = 0, down_s = 0, pdown_s = 0, idle_s = 0, plan_s = 0, over_s = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("tres", s.tres);
    v("count", s.count);
    v("alloc_s", s.alloc_s);
    v("down_s", s.down_s);
    v("pdown_s", s.pdown_s);
    v("idle_s", s.idle_s);
    v("plan_s", s.plan_s);
    v("over_s", s.over_s);
  }
};

struct UsageAssocAnswer {
  using WireRecord = void;
  std::string user, account;  // account "" = the root
  std::string proper;         // the user's full name (the GECOS field's first part), "" if none
  int64_t cpu_s = 0, gpu_s = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("user", s.user);
    v("account", s.account);
    v("proper", s.proper);
    v("cpu_s", s.cpu_s);
    v("gpu_s", s.gpu_s);
  }
};

// An account and its parent ("" = the root), for AccountUtilizationByUser's hierarchy.
struct UsageAccountAnswer {
  using WireRecord = void;
  std::string name, parent;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("name", s.name);
    v("parent", s.parent);
  }
};

struct UsageAnswer {
  using WireRecord = void;
  std::string cluster;
  int64_t start = 0, end = 0;
  int64_t measured_start = 0, measured_end = 0;  // what the figures cover: max(start, when the records begin), min(end, now)
  std::vector<UsageTresAnswer> tres;        // cpu, then gres/gpu
  std::vector<UsageAssocAnswer> assocs;     // sorted by (account, user)
  std::vector<UsageAccountAnswer> accounts;  // the accounts in force
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("cluster", s.cluster);
    v("start", s.start);
    v("end", s.end);
    v("measured_start", s.measured_start);
    v("measured_end", s.measured_end);
    v("tres", s.tres);
    v("assocs", s.assocs);
    v("accounts", s.accounts);
  }
};

}  // namespace muster
