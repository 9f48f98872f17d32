#include "config/config_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "base/read_file.h"

namespace muster {
namespace {

constexpr char kHashFile[] = "hash";
constexpr char kMusterYaml[] = "muster.yaml";

Status WriteWhole(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".new";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Internal("cannot write " + tmp + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      close(fd);
      return Internal("cannot write " + tmp + ": " + why);
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) return Internal("cannot write " + tmp + ": " + std::strerror(errno));
  if (rename(tmp.c_str(), path.c_str()) != 0) return Internal("cannot rename " + tmp + ": " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace

std::string CachedMusterYamlPath(const std::string& dir) { return (std::filesystem::path(dir) / kMusterYaml).string(); }

StatusOr<std::string> WithClusterFile(const std::string& muster_yaml, const std::string& cluster_file) {
  try {
    YAML::Node root = YAML::Load(muster_yaml);
    if (!root.IsMap()) return InvalidArgument("the controller's muster.yaml is not a YAML map");
    root["cluster_file"] = cluster_file;
    YAML::Emitter out;
    out << root;
    if (!out.good()) return InvalidArgument("cannot write muster.yaml: " + out.GetLastError());
    return std::string(out.c_str()) + "\n";
  } catch (const YAML::Exception& e) {
    return InvalidArgument(std::string("the controller's muster.yaml is not valid YAML: ") + e.what());
  }
}

Status WriteConfigCache(const std::string& dir, const CachedConfig& config) {
  if (config.files.empty()) return InvalidArgument("the controller served no cluster file");
  if (config.hash.empty()) return InvalidArgument("the controller served no hash");
  for (const CachedConfigFile& f : config.files) {
    if (f.name.empty() || f.name == "." || f.name == ".." || f.name.find('/') != std::string::npos ||
        f.name == kMusterYaml || f.name == kHashFile || f.name.size() > 255) {
      return InvalidArgument("the controller served a file named '" + f.name + "', which cannot be cached");
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Internal("cannot make the configuration cache " + dir + ": " + ec.message());
  chmod(dir.c_str(), 0700);
  const std::filesystem::path d = std::filesystem::absolute(dir, ec);
  ASSIGN_OR_RETURN(std::string yaml, WithClusterFile(config.muster_yaml, (d / config.files[0].name).string()));
  // The hash goes first and comes back last: a cache cut short has none, and is not used.
  if (unlink((d / kHashFile).c_str()) != 0 && errno != ENOENT) {
    return Internal("cannot write " + (d / kHashFile).string() + ": " + std::strerror(errno));
  }
  for (const CachedConfigFile& f : config.files) RETURN_IF_ERROR(WriteWhole((d / f.name).string(), f.text));
  RETURN_IF_ERROR(WriteWhole((d / kMusterYaml).string(), yaml));
  return WriteWhole((d / kHashFile).string(), config.hash + "\n");
}

StatusOr<std::string> ReadCachedConfigHash(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / kHashFile).string();
  StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok() && text.status().code() == StatusCode::kNotFound) return NotFound("no cached configuration in " + dir);
  if (!text.ok()) return text.status();
  std::string hash = text->substr(0, text->find('\n'));
  if (hash.empty()) return NotFound("no cached configuration in " + dir + " (its hash file is empty)");
  return hash;
}

}  // namespace muster
