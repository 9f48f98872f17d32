// Shared by the tests of every layer and by the integration tests (tests/*.cc): a temporary
// directory that cleans up after itself, and a bounded wait on a condition. Header-only and
// test code: included by *_test.cc and tests/ alone, never by a library's source (it needs no
// library either, so integration tests that link none can use it).
#pragma once

#include <stdlib.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

namespace muster {

// A fresh directory under the system's temporary one (mkdtemp: "<prefix>XXXXXX"), removed with
// everything below it when the TempDir goes.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "muster-test-") {
    std::string pattern = (std::filesystem::temp_directory_path() / (std::string(prefix) + "XXXXXX")).string();
    // A constructor cannot ASSERT; googletest reports the exception as the test's failure.
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    }
    path_ = std::move(pattern);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // The path of `name` in the directory.
  std::string Path(std::string_view name) const { return path_ + "/" + std::string(name); }
  // Writes `text` to `name` in the directory (replacing it); its path.
  std::string Write(std::string_view name, std::string_view text) const {
    const std::string p = Path(name);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    return p;
  }

 private:
  std::string path_;
};

// Polls `done` every `poll` until it holds (true) or `limit` has passed (false, after one last
// look at the end). Tests wait on conditions this way, never by fixed sleeps.
inline bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds limit,
                    std::chrono::milliseconds poll = std::chrono::milliseconds(50)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(poll);
  }
  return true;
}

}  // namespace muster
