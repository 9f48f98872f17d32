// The daemons' log: one line per event, written through spdlog (header-only, compiled into
// base/log.cc alone). A line carries the UTC time, the process and the node it runs on, the level,
// and what the event is about:
//   2026-12-05T01:23:45.123Z musterd[node1] info: JobId=42: started as pid 1234
//   2026-12-05T01:23:46.001Z musterctld warning: NodeName=node2: drained: health check: ...
// Lines go to stderr until InitLogging names a file (appended to, created 0640) or syslog (the
// journal on systemd hosts; under a systemd unit stderr reaches the journal as well). Safe to call
// from any thread. Commands (sbatch, squeue, ...) do not log: they print Slurm's messages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace muster {

enum class LogLevel { kDebug, kInfo, kWarning, kError };

// "debug", "info", "warning" (or "warn"), "error".
StatusOr<LogLevel> ParseLogLevel(std::string_view name);
const char* LogLevelName(LogLevel level);

struct LogOptions {
  std::string process;  // "musterctld", "musterd", "musterd-shepherd"
  std::string node;     // the node the process serves, shown as process[node]; empty: none
  LogLevel level = LogLevel::kInfo;
  std::string file;     // empty: stderr
  bool syslog = false;  // to syslog(3) instead (ident: the process name)
};

// Replaces the process's logger. Fails, naming the file, when the file cannot be opened; the
// previous logger then stays.
Status InitLogging(const LogOptions& options);

// What a line is about: a job ("JobId=42"), one of its steps ("StepId=42.0"), a node
// ("NodeName=node1"), or, all unset, the process itself.
struct LogSubject {
  int64_t job_id = 0;
  int step_id = -1;
  std::string_view node;

  static LogSubject Job(int64_t job_id) { return {job_id, -1, {}}; }
  static LogSubject Step(int64_t job_id, int step_id) { return {job_id, step_id, {}}; }
  static LogSubject Node(std::string_view node) { return {0, -1, node}; }
};

// The subject as the line shows it, "" for none ("JobId=42", "StepId=42.0", "NodeName=n1").
std::string LogSubjectText(const LogSubject& subject);

bool LogEnabled(LogLevel level);
void Log(LogLevel level, const LogSubject& subject, std::string_view message);

inline void LogDebug(std::string_view m) { Log(LogLevel::kDebug, {}, m); }
inline void LogInfo(std::string_view m) { Log(LogLevel::kInfo, {}, m); }
inline void LogWarning(std::string_view m) { Log(LogLevel::kWarning, {}, m); }
inline void LogError(std::string_view m) { Log(LogLevel::kError, {}, m); }
inline void LogDebug(const LogSubject& s, std::string_view m) { Log(LogLevel::kDebug, s, m); }
inline void LogInfo(const LogSubject& s, std::string_view m) { Log(LogLevel::kInfo, s, m); }
inline void LogWarning(const LogSubject& s, std::string_view m) { Log(LogLevel::kWarning, s, m); }
inline void LogError(const LogSubject& s, std::string_view m) { Log(LogLevel::kError, s, m); }

// Writes what is buffered (before an abort or exit).
void FlushLog();

}  // namespace muster
