#include "net/http_server_core.h"

#include <algorithm>

#include "base/log.h"
#include "net/token.h"

namespace muster {

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

int64_t WallClockSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void ServerCore::LogTlsFailure(const std::string& peer_key, const std::string& peer_name, const std::string& what) {
  static constexpr size_t kMaxLoggedTlsPeers = 1024;
  {
    MutexLock lock(mu);
    if (tls_failures_logged.size() >= kMaxLoggedTlsPeers || !tls_failures_logged.insert(peer_key).second) return;
  }
  LogWarning("TLS handshake from " + peer_name + " failed: " + what +
             " (no more TLS failures of this address are logged)");
}

uint64_t ServerCore::BodyLimit(std::string_view method, std::string_view path) const {
  if (!body_limit) return max_body;
  return static_cast<uint64_t>(std::max<int64_t>(body_limit(method, path), 0));
}

bool ServerCore::PrivilegedUid(uint32_t uid) const {
  return std::find(privileged_uids.begin(), privileged_uids.end(), uid) != privileged_uids.end();
}

bool ServerCore::AddCounted(SessionBase* s, const std::string& key, bool privileged) {
  MutexLock lock(mu);
  if (stopping || !places.AddCounted(s, key, privileged)) return false;
  live.emplace(s, s->weak_from_this());
  return true;
}

bool ServerCore::MayAddUnauthenticated(const std::string& address) {
  std::string to_log;
  bool may = false;
  {
    MutexLock lock(mu);
    may = places.MayAddUnauthenticated(address);
    if (!may) {
      ++refused_unlogged;
      to_log = FullLogLocked();
    }
  }
  if (!to_log.empty()) LogWarning(to_log);
  return may;
}

bool ServerCore::AddUnauthenticated(SessionBase* s, const std::string& address) {
  std::shared_ptr<SessionBase> evicted;
  std::string to_log;
  {
    MutexLock lock(mu);
    if (stopping) return false;
    if (ConnectionPlaces::Id id = places.AddUnauthenticated(s, address)) {
      auto it = live.find(const_cast<SessionBase*>(static_cast<const SessionBase*>(id)));
      if (it != live.end()) evicted = it->second.lock();  // null: it is being destroyed
      ++evicted_unlogged;
      to_log = FullLogLocked();
    }
    live.emplace(s, s->weak_from_this());
  }
  if (evicted) evicted->RequestStop();
  if (!to_log.empty()) LogWarning(to_log);
  return true;
}

std::string ServerCore::FullLogLocked() {
  const int64_t now = SteadyNanos();
  if (full_logged_at != 0 && now - full_logged_at < int64_t{60} * 1000000000) return "";
  std::string msg = "every place for unauthenticated TCP connections is held (" +
                    std::to_string(places.limits().max_unauthenticated) + "): " + std::to_string(evicted_unlogged) +
                    " closed to make room, " + std::to_string(refused_unlogged) +
                    " refused from the addresses holding the most" +
                    (full_logged_at == 0 ? std::string() : " in the last minute") + " (logged at most once a minute)";
  evicted_unlogged = refused_unlogged = 0;
  full_logged_at = now;
  return msg;
}

ConnectionPlaces::Promotion ServerCore::Promote(SessionBase* s, const Caller& caller, std::string* why) {
  MutexLock lock(mu);
  return places.Promote(s, "uid " + std::to_string(caller.uid), PrivilegedUid(caller.uid), why);
}

void ServerCore::Unregister(SessionBase* s) {
  MutexLock lock(mu);
  live.erase(s);
  places.Remove(s);
  cv.notify_all();
}

Caller ServerCore::AuthenticateTcp(const std::map<std::string, std::string>& headers,
                                   std::string* session_token) const {
  if (!authenticate) return CallerFromToken(tokens, headers, session_token, WallClockSeconds());
  try {
    return authenticate(headers);
  } catch (const std::exception& e) {
    Caller c;
    c.via = "none";
    c.error = std::string("cannot check the credentials: ") + e.what();
    return c;
  }
}

HttpResponse ServerCore::Unauthenticated(const std::string& why) const {
  if (unauthenticated_reply) return unauthenticated_reply(why);
  return HttpResponse::Error(401, "authentication required: " + why);
}

}  // namespace muster
