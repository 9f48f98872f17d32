// sreport: Slurm 22.05's usage reports (src/sreport/cluster_reports.c, user_reports.c, common.c),
// computed by the controller from the job and node records over the period (GET /v1/reports/usage,
// report/usage_report.h): `cluster Utilization`, `cluster AccountUtilizationByUser`,
// `cluster UserUtilizationByAccount` and `user TopUsage`, with sreport's options (-t, -T, -n, -p,
// -P, -s) and conditions (Start=, End=, Format=, Users=, Accounts=, Clusters=, TopCount=, Group).
// Parse (ParseSreportArgs), fetch, format (FormatSreport): the first and the last are pure.
#pragma once

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/option_engine.h"
#include "wire/usage.h"

namespace muster {

// sreport -t: Slurm's slurmdb_report_time_format_t.
enum class SreportTime { kSecs, kMins, kHours, kPercent, kSecsPer, kMinsPer, kHoursPer };
enum class SreportReport { kUtilization, kAccountByUser, kUserByAccount, kTopUsage };

struct SreportRequest {
  SreportReport report = SreportReport::kUtilization;
  SreportTime time = SreportTime::kMins;
  int parsable = 0;  // 0: columns; 1: -p ('|' after every field); 2: -P (not after the last)
  bool header = true;
  bool tres_given = false;              // -T: "TRES" in the banner and a TRES Name column
  std::vector<std::string> tres = {"cpu"};  // in the order given: "cpu", "gres/gpu"
  bool sort_by_name = false;            // -s name (topusage: by name, not by usage)
  std::vector<std::string> format;      // Format=, as given ("Login%20"); empty: the report's default
  std::set<std::string> users, accounts, clusters;
  int64_t top_count = 10;
  bool group = false;
  int64_t start = 0, end = 0;           // the period, rounded to hours as Slurm rounds it
  // What sreport says on stderr and goes on ("Unknown condition: x"); it then exits 1.
  std::vector<std::string> warnings;
  bool help = false, version = false;
};

// `now`: for the default period (yesterday, local time) and relative times.
StatusOr<SreportRequest> ParseSreportArgs(const std::vector<std::string>& args, int64_t now);
OptionTable SreportOptionTable();  // every option of Slurm 22.05's sreport

// Slurm's slurmdb_report_set_start_end_time: unset start/end are yesterday's midnight and today's;
// given ones are rounded to the nearest hour (30 s and up to the next minute, then 30 min and up
// to the next hour); end at least an hour after start. Local time.
void RoundReportPeriod(int64_t* start, int64_t* end, int64_t now);

// The report's text: stdout's, and in `err` the fields Slurm refuses (" Unknown field 'x'").
std::string FormatSreport(const SreportRequest& req, const UsageAnswer& usage, std::string* err);

int SreportMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
