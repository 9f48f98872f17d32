#include "net/connection_places.h"

#include <algorithm>

namespace muster {

ConnectionPlaces::ConnectionPlaces(const Limits& limits) : limits_(limits) {
  limits_.max_counted = std::max(limits_.max_counted, 1);
  limits_.max_per_key = std::max(limits_.max_per_key, 1);
  limits_.reserved = std::max(limits_.reserved, 0);
  limits_.max_unauthenticated = std::max(limits_.max_unauthenticated, 1);
}

int ConnectionPlaces::held_by(const std::string& key) const {
  auto it = per_key_.find(key);
  return it == per_key_.end() ? 0 : it->second;
}

size_t ConnectionPlaces::HeldFrom(const std::string& address) const {
  auto it = by_address_.find(address);
  return it == by_address_.end() ? 0 : it->second.size();
}

void ConnectionPlaces::Resize(size_t from, size_t to) {
  if (from > 0) {
    auto it = addresses_holding_.find(from);
    if (--it->second == 0) addresses_holding_.erase(it);
  }
  if (to > 0) ++addresses_holding_[to];
}

bool ConnectionPlaces::HasRoom(const std::string& key, bool privileged, std::string* why) const {
  if (counted_ >= limits_.max_counted + (privileged ? limits_.reserved : 0)) {
    if (why) *why = "the server holds as many connections as it may (" + std::to_string(counted_) + ")";
    return false;
  }
  if (!privileged && held_by(key) >= limits_.max_per_key) {
    if (why) *why = key + " holds " + std::to_string(limits_.max_per_key) + " connections, as many as one caller may";
    return false;
  }
  return true;
}

bool ConnectionPlaces::AddCounted(Id id, const std::string& key, bool privileged) {
  if (entries_.count(id) || !HasRoom(key, privileged, nullptr)) return false;
  ++per_key_[key];
  ++counted_;
  entries_[id] = Entry{State::kCounted, key, {}};
  return true;
}

bool ConnectionPlaces::MayAddUnauthenticated(const std::string& address) const {
  if (unauthenticated_ < limits_.max_unauthenticated) return true;
  if (closing_ >= limits_.max_unauthenticated) return false;  // the server is behind with closing
  return addresses_holding_.empty() || HeldFrom(address) < addresses_holding_.rbegin()->first;
}

ConnectionPlaces::Id ConnectionPlaces::AddUnauthenticated(Id id, const std::string& address) {
  Id evicted = nullptr;
  if (unauthenticated_ >= limits_.max_unauthenticated && !by_address_.empty()) {
    // The oldest connection of the address holding the most (of equals, the one whose oldest came first).
    auto victim = by_address_.end();
    for (auto it = by_address_.begin(); it != by_address_.end(); ++it) {
      if (victim == by_address_.end() || it->second.size() > victim->second.size() ||
          (it->second.size() == victim->second.size() && it->second.front().first < victim->second.front().first)) {
        victim = it;
      }
    }
    evicted = victim->second.front().second;
    Remove(evicted);
    entries_[evicted] = Entry{State::kClosing, "", {}};
    ++closing_;
  }
  auto& queue = by_address_[address];
  queue.emplace_back(arrivals_++, id);
  Resize(queue.size() - 1, queue.size());
  entries_[id] = Entry{State::kUnauthenticated, address, std::prev(queue.end())};
  ++unauthenticated_;
  return evicted;
}

ConnectionPlaces::Promotion ConnectionPlaces::Promote(Id id, const std::string& key, bool privileged,
                                                      std::string* why) {
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second.state != State::kUnauthenticated) return Promotion::kNotHeld;
  if (!HasRoom(key, privileged, why)) return Promotion::kNoPlace;
  Remove(id);
  ++per_key_[key];
  ++counted_;
  entries_[id] = Entry{State::kCounted, key, {}};
  return Promotion::kPromoted;
}

void ConnectionPlaces::Remove(Id id) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  switch (e.state) {
    case State::kUnauthenticated: {
      auto q = by_address_.find(e.key);
      q->second.erase(e.at);
      Resize(q->second.size() + 1, q->second.size());
      if (q->second.empty()) by_address_.erase(q);
      --unauthenticated_;
      break;
    }
    case State::kCounted:
      if (auto k = per_key_.find(e.key); k != per_key_.end() && --k->second <= 0) per_key_.erase(k);
      --counted_;
      break;
    case State::kClosing:
      --closing_;
      break;
  }
  entries_.erase(it);
}

}  // namespace muster
