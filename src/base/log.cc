#include "base/log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <atomic>
#include <memory>

#include <spdlog/logger.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/sinks/syslog_sink.h>
#include <spdlog/spdlog.h>

#include "base/mutex.h"

namespace muster {
namespace {

constexpr char kPattern[] = "%Y-%m-%dT%H:%M:%S.%eZ %n %l: %v";

spdlog::level::level_enum SpdLevel(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return spdlog::level::debug;
    case LogLevel::kInfo: return spdlog::level::info;
    case LogLevel::kWarning: return spdlog::level::warn;
    case LogLevel::kError: return spdlog::level::err;
  }
  return spdlog::level::info;
}

std::shared_ptr<spdlog::logger> MakeLogger(const std::string& name, spdlog::sink_ptr sink, LogLevel level) {
  auto logger = std::make_shared<spdlog::logger>(name, std::move(sink));
  logger->set_pattern(kPattern, spdlog::pattern_time_type::utc);
  logger->set_level(SpdLevel(level));
  logger->flush_on(spdlog::level::debug);  // every line reaches the file before the next event
  return logger;
}

struct State {
  std::atomic<int> level{static_cast<int>(spdlog::level::info)};  // the logger's, read without the lock
  Mutex mu{"log"};
  std::shared_ptr<spdlog::logger> logger GUARDED_BY(mu) =
      MakeLogger("muster", std::make_shared<spdlog::sinks::stderr_sink_mt>(), LogLevel::kInfo);
};

State& Global() {
  static State* s = new State;  // never destroyed: threads may log while the process exits
  return *s;
}

std::shared_ptr<spdlog::logger> Current() {
  State& s = Global();
  MutexLock lock(s.mu);
  return s.logger;
}

}  // namespace

StatusOr<LogLevel> ParseLogLevel(std::string_view name) {
  if (name == "debug") return LogLevel::kDebug;
  if (name == "info") return LogLevel::kInfo;
  if (name == "warning" || name == "warn") return LogLevel::kWarning;
  if (name == "error") return LogLevel::kError;
  return InvalidArgument("invalid log level '" + std::string(name) + "' (debug, info, warning or error)");
}

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kError: return "error";
  }
  return "info";
}

Status InitLogging(const LogOptions& options) {
  const std::string name = options.node.empty() ? options.process : options.process + "[" + options.node + "]";
  spdlog::sink_ptr sink;
  if (options.syslog) {
    sink = std::make_shared<spdlog::sinks::syslog_sink_mt>(options.process, LOG_PID, LOG_DAEMON, true);
  } else if (!options.file.empty()) {
    // Created 0640 (the log names users' jobs); spdlog opens it for appending afterwards.
    const int fd = open(options.file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0) return Status(StatusCode::kUnavailable, "cannot open the log file " + options.file + ": " + std::strerror(errno));
    close(fd);
    try {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(options.file, /*truncate=*/false);
    } catch (const spdlog::spdlog_ex& e) {
      return Status(StatusCode::kUnavailable, "cannot open the log file " + options.file + ": " + e.what());
    }
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  }
  auto logger = MakeLogger(name, std::move(sink), options.level);
  if (options.syslog) logger->set_pattern("%l: %v");  // syslog adds time, host and pid
  State& s = Global();
  MutexLock lock(s.mu);
  s.level = static_cast<int>(logger->level());
  s.logger = std::move(logger);
  return Status::Ok();
}

std::string LogSubjectText(const LogSubject& subject) {
  if (subject.job_id > 0) {
    if (subject.step_id >= 0) return "StepId=" + std::to_string(subject.job_id) + "." + std::to_string(subject.step_id);
    return "JobId=" + std::to_string(subject.job_id);
  }
  if (!subject.node.empty()) return "NodeName=" + std::string(subject.node);
  return "";
}

bool LogEnabled(LogLevel level) { return static_cast<int>(SpdLevel(level)) >= Global().level.load(std::memory_order_relaxed); }

void Log(LogLevel level, const LogSubject& subject, std::string_view message) {
  if (!LogEnabled(level)) return;
  std::shared_ptr<spdlog::logger> logger = Current();
  const auto lvl = SpdLevel(level);
  const std::string about = LogSubjectText(subject);
  if (about.empty()) {
    logger->log(lvl, "{}", message);
  } else {
    logger->log(lvl, "{}: {}", about, message);
  }
}

void FlushLog() { Current()->flush(); }

}  // namespace muster
