#include "sim/trace.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <map>
#include <sstream>

#include "base/read_file.h"

namespace muster {

namespace {

// One CSV line's fields, empty ones kept (these traces quote nothing).
std::vector<std::string> Fields(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    out.emplace_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// A CSV file read row by row, its columns found by the header's names.
class Csv {
 public:
  // `need`: columns the header must name; `optional`: columns read as "" where it does not.
  static StatusOr<Csv> Open(const std::string& text, const std::string& name, const std::vector<std::string>& need,
                            const std::vector<std::string>& optional = {}) {
    Csv c(text, name);
    if (!c.Next()) return InvalidArgument(name + ": empty file (expected a header line)");
    const std::vector<std::string> header = c.row_;
    for (const std::string& col : need) {
      auto it = std::find(header.begin(), header.end(), col);
      if (it == header.end()) return InvalidArgument(name + ":1: no column '" + col + "' in the header");
      c.index_[col] = static_cast<size_t>(it - header.begin());
    }
    for (const std::string& col : optional) {
      auto it = std::find(header.begin(), header.end(), col);
      if (it != header.end()) c.index_[col] = static_cast<size_t>(it - header.begin());
    }
    c.width_ = header.size();
    return c;
  }
  // The next non-blank row; false at the end.
  bool Next() {
    while (pos_ < text_.size()) {
      size_t end = text_.find('\n', pos_);
      if (end == std::string::npos) end = text_.size();
      std::string_view line(text_.data() + pos_, end - pos_);
      pos_ = end + 1;
      ++line_;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
      row_ = Fields(line);
      return true;
    }
    return false;
  }
  Status CheckWidth() const {
    if (row_.size() != width_) {
      return Error("has " + std::to_string(row_.size()) + " fields, the header " + std::to_string(width_));
    }
    return Status::Ok();
  }
  const std::string& Get(const std::string& col) const {
    static const std::string kNone;
    auto it = index_.find(col);
    return it == index_.end() ? kNone : row_[it->second];
  }
  Status Error(const std::string& why) const { return InvalidArgument(name_ + ":" + std::to_string(line_) + ": " + why); }
  // An integer column within [lo, hi]; `empty_ok` reads "" as 0.
  Status Int(const std::string& col, int64_t lo, int64_t hi, int64_t* out, bool empty_ok = false) const {
    const std::string& v = Get(col);
    if (v.empty() && empty_ok) {
      *out = 0;
      return Status::Ok();
    }
    int64_t x = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || p != v.data() + v.size()) return Error(col + " '" + v + "' is not a whole number");
    if (x < lo || x > hi) {
      return Error(col + " " + v + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    *out = x;
    return Status::Ok();
  }
  Status Real(const std::string& col, double lo, double* out) const {
    const std::string& v = Get(col);
    char* end = nullptr;
    errno = 0;
    const double x = v.empty() ? NAN : std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || errno != 0 || !std::isfinite(x)) {
      return Error(col + " '" + v + "' is not a number");
    }
    if (x < lo) return Error(col + " " + v + " is below " + std::to_string(static_cast<int64_t>(lo)));
    *out = x;
    return Status::Ok();
  }

 private:
  Csv(const std::string& text, const std::string& name) : text_(text), name_(name) {}
  const std::string& text_;
  std::string name_;
  size_t pos_ = 0;
  int64_t line_ = 0;
  size_t width_ = 0;
  std::vector<std::string> row_;
  std::map<std::string, size_t> index_;
};

constexpr int64_t kMaxMilli = int64_t{1} << 40;

}  // namespace

StatusOr<std::string> ReadTraceFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NotFound("cannot read trace file '" + path + "'");
  std::string text;
  const int err = ReadAll(fd, &text);
  close(fd);
  if (err != 0) return Internal("error reading trace file '" + path + "'");
  return text;
}

StatusOr<std::vector<OpenbNode>> ParseOpenbNodes(const std::string& text, const std::string& name) {
  ASSIGN_OR_RETURN(Csv csv, Csv::Open(text, name, {"sn", "cpu_milli", "memory_mib", "gpu", "model"}));
  std::vector<OpenbNode> out;
  while (csv.Next()) {
    RETURN_IF_ERROR(csv.CheckWidth());
    OpenbNode n;
    n.name = csv.Get("sn");
    if (n.name.empty()) return csv.Error("sn (the node name) is empty");
    int64_t gpus = 0;
    RETURN_IF_ERROR(csv.Int("cpu_milli", 0, kMaxMilli, &n.cpu_milli));
    RETURN_IF_ERROR(csv.Int("memory_mib", 0, kMaxMilli, &n.memory_mib));
    RETURN_IF_ERROR(csv.Int("gpu", 0, 64, &gpus));
    n.gpus = static_cast<int>(gpus);
    n.model = csv.Get("model");
    if (n.model == "nan") n.model.clear();
    if (n.gpus > 0 && n.model.empty()) return csv.Error("a node with GPUs has no model");
    out.push_back(std::move(n));
  }
  if (out.empty()) return InvalidArgument(name + ": no nodes");
  return out;
}

StatusOr<std::vector<OpenbPod>> ParseOpenbPods(const std::string& text, const std::string& name) {
  ASSIGN_OR_RETURN(Csv csv, Csv::Open(text, name, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"},
                                      {"gpu_spec", "qos", "creation_time", "deletion_time", "scheduled_time"}));
  std::vector<OpenbPod> out;
  while (csv.Next()) {
    RETURN_IF_ERROR(csv.CheckWidth());
    OpenbPod p;
    p.name = csv.Get("name");
    if (p.name.empty()) return csv.Error("name is empty");
    int64_t num_gpu = 0, gpu_milli = 0;
    RETURN_IF_ERROR(csv.Int("cpu_milli", 0, kMaxMilli, &p.cpu_milli));
    RETURN_IF_ERROR(csv.Int("memory_mib", 0, kMaxMilli, &p.memory_mib));
    RETURN_IF_ERROR(csv.Int("num_gpu", 0, 64, &num_gpu));
    RETURN_IF_ERROR(csv.Int("gpu_milli", 0, 1000, &gpu_milli));
    if (num_gpu > 0 && gpu_milli == 0) return csv.Error("num_gpu " + std::to_string(num_gpu) + " with gpu_milli 0");
    if (num_gpu > 1 && gpu_milli != 1000) {
      return csv.Error("gpu_milli " + std::to_string(gpu_milli) + " for " + std::to_string(num_gpu) +
                       " GPUs (only a single GPU is shared)");
    }
    p.num_gpu = static_cast<int>(num_gpu);
    p.gpu_milli = num_gpu > 0 ? static_cast<int>(gpu_milli) : 0;
    p.gpu_spec = csv.Get("gpu_spec");
    if (p.gpu_spec == "nan") p.gpu_spec.clear();
    p.qos = csv.Get("qos");
    RETURN_IF_ERROR(csv.Int("creation_time", 0, kMaxMilli, &p.creation_s, true));
    RETURN_IF_ERROR(csv.Int("deletion_time", 0, kMaxMilli, &p.deletion_s, true));
    RETURN_IF_ERROR(csv.Int("scheduled_time", 0, kMaxMilli, &p.scheduled_s, true));
    out.push_back(std::move(p));
  }
  if (out.empty()) return InvalidArgument(name + ": no pods");
  return out;
}

StatusOr<std::vector<PhillyJob>> ParsePhilly(const std::string& text, const std::string& name) {
  ASSIGN_OR_RETURN(Csv csv, Csv::Open(text, name, {"timestamp", "duration", "num_gpus", "cluster"}));
  std::vector<PhillyJob> out;
  while (csv.Next()) {
    RETURN_IF_ERROR(csv.CheckWidth());
    PhillyJob j;
    j.id = static_cast<int64_t>(out.size()) + 1;
    const std::string& ts = csv.Get("timestamp");
    std::tm tm{};
    const char* end = strptime(ts.c_str(), "%Y-%m-%d %H:%M:%S", &tm);
    if (end == nullptr || *end != '\0') return csv.Error("timestamp '" + ts + "' is not YYYY-MM-DD HH:MM:SS");
    j.arrival_s = timegm(&tm);
    double duration = 0;
    RETURN_IF_ERROR(csv.Real("duration", 0, &duration));
    j.duration_s = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(duration)));
    int64_t gpus = 0;
    RETURN_IF_ERROR(csv.Int("num_gpus", 1, 4096, &gpus));
    j.gpus = static_cast<int>(gpus);
    j.vc = csv.Get("cluster");
    if (j.vc.empty()) return csv.Error("cluster (the virtual cluster) is empty");
    out.push_back(std::move(j));
  }
  if (out.empty()) return InvalidArgument(name + ": no jobs");
  std::stable_sort(out.begin(), out.end(), [](const PhillyJob& a, const PhillyJob& b) { return a.arrival_s < b.arrival_s; });
  return out;
}

StatusOr<std::vector<SwfJob>> ParseSwf(const std::string& text, const std::string& name) {
  std::vector<SwfJob> out;
  std::istringstream in(text);
  std::string line;
  int64_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == ';') continue;
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string x; fields >> x;) f.push_back(x);
    auto error = [&](const std::string& why) { return InvalidArgument(name + ":" + std::to_string(n) + ": " + why); };
    if (f.size() != 18) return error("has " + std::to_string(f.size()) + " fields, SWF has 18");
    int64_t v[18];
    for (int k = 0; k < 18; ++k) {
      char* end = nullptr;
      const double x = std::strtod(f[k].c_str(), &end);  // some logs write averages with decimals
      if (end != f[k].c_str() + f[k].size() || !std::isfinite(x)) {
        return error("field " + std::to_string(k + 1) + " '" + f[k] + "' is not a number");
      }
      v[k] = static_cast<int64_t>(std::llround(x));
    }
    SwfJob j;
    j.id = v[0];
    j.submit_s = v[1];
    j.wait_s = v[2];
    j.run_s = v[3];
    j.processors = static_cast<int>(v[4] > 0 ? v[4] : v[7]);
    j.requested_s = v[8];
    j.status = static_cast<int>(v[10]);
    j.user = static_cast<int>(v[11]);
    j.group = static_cast<int>(v[12]);
    j.queue = static_cast<int>(v[14]);
    j.partition = static_cast<int>(v[15]);
    if (j.submit_s < 0) return error("submit time " + f[1] + " is unknown or negative");
    out.push_back(j);
  }
  if (out.empty()) return InvalidArgument(name + ": no jobs");
  return out;
}

SwfHeader ParseSwfHeader(const std::string& text) {
  SwfHeader h;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    if (line[first] != ';') break;  // the header ends at the first job
    std::istringstream words(line.substr(first + 1));
    std::string key;
    int64_t value = -1;
    if (!(words >> key >> value) || value <= 0) continue;
    if (key == "MaxNodes:") h.max_nodes = value;
    if (key == "MaxProcs:") h.max_procs = value;
  }
  return h;
}

}  // namespace muster
