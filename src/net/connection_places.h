// Who holds the HTTP server's connections, and whether one more may open (HttpServer::Options'
// caps): the accounting alone, without sockets, so that its rules are tested by themselves. Not
// thread-safe: the server calls it under its own lock.
//
// Two pools:
//   - counted: connections whose caller is known (a Unix peer's uid, a TCP connection once a
//     request on it presented a valid credential, as "uid 1000"; or, on a server that checks no
//     credentials over TCP, the source address). At most `max_counted` in all, `max_per_key` per
//     key; a privileged caller has no per-key cap and may use `reserved` places beyond the total.
//   - unauthenticated: TCP connections that have not yet presented a valid credential, at most
//     `max_unauthenticated`, never counted above. When they are all held, a new one from an address
//     that holds fewer of them than the address holding the most takes the place of that address's
//     oldest (the server closes it); one from an address holding the most (or while as many
//     connections as there are places are still being closed) is refused at once, before the
//     server spends anything on it. So a flood from some addresses only ever displaces its own
//     connections, costs the server an accept and a close per connection once the places are full,
//     and never shuts out a client that connects from another address and authenticates.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

namespace muster {

class ConnectionPlaces {
 public:
  struct Limits {
    int max_counted = 4096;
    int max_per_key = 256;
    int reserved = 64;
    int max_unauthenticated = 256;
  };
  using Id = const void*;

  explicit ConnectionPlaces(const Limits& limits);

  // A connection whose caller is known at once: true when it has a place (it must be Removed),
  // false when the total or its key's cap is reached.
  bool AddCounted(Id id, const std::string& key, bool privileged);
  // Whether a new TCP connection from `address` may take an unauthenticated place (see above);
  // when not, it is to be closed at once.
  bool MayAddUnauthenticated(const std::string& address) const;
  // A TCP connection not yet authenticated, from `address`, which MayAddUnauthenticated admitted:
  // the connection that gave its place up for it is returned (nullptr when none had to). That one
  // is "closing" until it is Removed.
  Id AddUnauthenticated(Id id, const std::string& address);

  enum class Promotion {
    kPromoted,  // it now counts against `key`
    kNoPlace,   // the total or the key's cap is reached: *why says which; it keeps its unauthenticated place
    kNotHeld,   // it holds no unauthenticated place (it was evicted, or was counted already)
  };
  // The unauthenticated `id` authenticated as `key`.
  Promotion Promote(Id id, const std::string& key, bool privileged, std::string* why);
  // Gives up whatever place `id` holds (none is fine).
  void Remove(Id id);

  const Limits& limits() const { return limits_; }
  int counted() const { return counted_; }
  int unauthenticated() const { return unauthenticated_; }
  int closing() const { return closing_; }  // evicted, not yet Removed
  int held_by(const std::string& key) const;

 private:
  bool HasRoom(const std::string& key, bool privileged, std::string* why) const;
  size_t HeldFrom(const std::string& address) const;
  void Resize(size_t from, size_t to);  // an address's unauthenticated count changed

  enum class State { kCounted, kUnauthenticated, kClosing };
  struct Entry {
    State state = State::kCounted;
    std::string key;  // the counted key, or the unauthenticated connection's address
    std::list<std::pair<uint64_t, Id>>::iterator at;  // in by_address_[key] when unauthenticated
  };
  Limits limits_;
  std::unordered_map<Id, Entry> entries_;
  std::unordered_map<std::string, int> per_key_;
  // An address's unauthenticated connections, oldest first, each with its arrival's number.
  std::unordered_map<std::string, std::list<std::pair<uint64_t, Id>>> by_address_;
  std::map<size_t, int> addresses_holding_;  // how many addresses hold n unauthenticated connections (n > 0)
  uint64_t arrivals_ = 0;
  int counted_ = 0;
  int unauthenticated_ = 0;
  int closing_ = 0;
};

}  // namespace muster
