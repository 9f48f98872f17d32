// A fake libnvidia-ml.so.1 for tests on real daemons: the slice of NVML's C ABI that musterd
// uses (discovery, features, health), answering from a JSON file named by $MUSTER_FAKE_NVML, which
// the test may rewrite at any time to inject faults. Each agent finds its node in its own command
// line (--node NAME), so one file describes every node of a local cluster:
//
//   {"gpus": 4, "name": "NVIDIA H100 80GB HBM3", "memory_mb": 81559, "driver": "580.65.06",
//    "cuda": 13000, "cc": [9, 0], "mig": {"1": ["1g.10gb", "3g.40gb"]},
//    "faults": {"node2": {"1": {"xid": [79], "ecc_dbe": 2, "remap_pending": true,
//                               "remap_failed": false, "lost": false, "throttle": 8}}}}
//
// Each Xid of a GPU's list is delivered once, in order, as an event. Metric readings of physical
// GPU i: utilization 10*i % 100 (GPU) and 5*i % 100 (memory), temperature 40+i C, power 100+i W,
// SM clock 1980 MHz, memory clock 2619 MHz; "metrics": false makes them NOT_SUPPORTED. UUIDs are made from the node
// name and the index. Test code: never shipped, never loaded unless agent.nvml_library names it.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

// Boost.JSON's implementation in this library of its own (hidden: CMake builds it with hidden
// visibility, the NVML entry points alone exported).
#include <boost/json/src.hpp>

namespace {

namespace bj = boost::json;

// The value under `key` of the object `o`; nullptr when `o` is not an object or has no such key.
const bj::value* At(const bj::value& o, std::string_view key) {
  const bj::object* obj = o.if_object();
  return obj == nullptr ? nullptr : obj->if_contains(key);
}

// The number, flag or text under `key`, or `def` when it is missing or of another type.
template <class T>
T Value(const bj::value& o, std::string_view key, T def) {
  const bj::value* v = At(o, key);
  if (v == nullptr) return def;
  if constexpr (std::is_same_v<T, bool>) {
    return v->is_bool() ? v->get_bool() : def;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v->is_string() ? std::string(v->get_string()) : def;
  } else {
    bj::error_code ec;
    const T x = v->to_number<T>(ec);
    return ec ? def : x;
  }
}
using Return = int;
constexpr Return kSuccess = 0;
constexpr Return kUninitialized = 1;
constexpr Return kInvalidArgument = 2;
constexpr Return kNotSupported = 3;
constexpr Return kInsufficientSize = 7;
constexpr Return kTimeout = 10;
constexpr Return kGpuIsLost = 15;
constexpr Return kUnknown = 999;

struct FakeDevice {
  int index;            // the physical GPU's (a MIG device's parent's)
  int slot = -1;        // a MIG device: its slot on the parent; -1 for a physical GPU
  std::string profile;  // a MIG device's profile ("1g.10gb")
};

struct Faults {
  std::vector<int> xids;
  unsigned long long ecc_dbe = 0;
  bool remap_pending = false;
  bool remap_failed = false;
  bool lost = false;
  unsigned long long throttle = 0;
};

struct State {
  std::mutex mu;
  bool ready = false;
  int opened = 0;
  std::string node;
  bj::value spec = bj::object();
  std::vector<FakeDevice> devices;
  std::map<int, std::vector<FakeDevice>> migs;  // per physical GPU in MIG mode, its MIG devices
  std::map<int, size_t> xids_delivered;  // per GPU: how many of its Xid list went out as events
};

State& S() {
  static State* s = new State();
  return *s;
}

std::string NodeFromCmdline() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (size_t start = 0; start < all.size();) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    args.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--node") return args[i + 1];
  }
  return "node";
}

bj::value ReadSpec() {
  const char* path = std::getenv("MUSTER_FAKE_NVML");
  if (path == nullptr) return bj::object();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  bj::error_code ec;
  bj::value j = bj::parse(text.str(), ec);
  return !ec && j.is_object() ? j : bj::value(bj::object());
}

// Reads the file again (faults change while the agent runs). Called with S().mu held.
void Refresh() { S().spec = ReadSpec(); }

Faults FaultsOf(int gpu) {
  Faults f;
  const bj::value* all = At(S().spec, "faults");
  const bj::value* node = all == nullptr ? nullptr : At(*all, S().node);
  const bj::value* found = node == nullptr ? nullptr : At(*node, std::to_string(gpu));
  if (found == nullptr || !found->is_object()) return f;
  const bj::value& g = *found;
  if (const bj::value* xids = At(g, "xid"); xids != nullptr && xids->is_array()) {
    for (const bj::value& x : xids->get_array()) {
      if (x.is_int64()) f.xids.push_back(static_cast<int>(x.get_int64()));
    }
  }
  f.ecc_dbe = Value(g, "ecc_dbe", 0ULL);
  f.remap_pending = Value(g, "remap_pending", false);
  f.remap_failed = Value(g, "remap_failed", false);
  f.lost = Value(g, "lost", false);
  f.throttle = Value(g, "throttle", 0ULL);
  return f;
}

FakeDevice* Dev(void* d) { return static_cast<FakeDevice*>(d); }

// A device call's preamble: the library is open, the handle is ours, and the GPU is not lost.
Return Check(void* d, bool lost_matters = true) {
  if (!S().ready) return kUninitialized;
  if (d == nullptr) return kInvalidArgument;
  if (lost_matters && FaultsOf(Dev(d)->index).lost) return kGpuIsLost;
  return kSuccess;
}

void CopyOut(const std::string& s, char* buf, unsigned len) { std::snprintf(buf, len, "%s", s.c_str()); }

struct PciInfo {
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
struct Memory {
  unsigned long long total, free, used;
};
struct EventData {
  void* device;
  unsigned long long event_type;
  unsigned long long event_data;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
constexpr unsigned long long kEventXid = 0x8;

// The metric calls' preamble: as Check, and NOT_SUPPORTED when the file says "metrics": false.
Return CheckMetrics(void* d) {
  if (Return r = Check(d); r != kSuccess) return r;
  return Value(S().spec, "metrics", true) ? kSuccess : kNotSupported;
}

struct Utilization {
  unsigned gpu, memory;
};

}  // namespace

#pragma GCC visibility push(default)
extern "C" {

Return nvmlInit_v2() {
  std::lock_guard<std::mutex> lock(S().mu);
  if (S().opened++ == 0) {
    S().node = NodeFromCmdline();
    Refresh();
    S().devices.clear();
    const int n = Value(S().spec, "gpus", 0);
    for (int i = 0; i < n; ++i) S().devices.push_back({i});
    S().migs.clear();
    const bj::value* mig = At(S().spec, "mig");
    for (int i = 0; i < n && mig != nullptr; ++i) {
      const bj::value* profiles = At(*mig, std::to_string(i));
      if (profiles == nullptr || !profiles->is_array()) continue;
      std::vector<FakeDevice>& slices = S().migs[i];
      for (const bj::value& p : profiles->get_array()) {
        if (p.is_string()) slices.push_back({i, static_cast<int>(slices.size()), std::string(p.get_string())});
      }
    }
    S().ready = true;
  }
  return kSuccess;
}

Return nvmlShutdown() {
  std::lock_guard<std::mutex> lock(S().mu);
  if (S().opened > 0 && --S().opened == 0) S().ready = false;
  return kSuccess;
}

const char* nvmlErrorString(Return r) {
  switch (r) {
    case kSuccess: return "Success";
    case kUninitialized: return "Uninitialized";
    case kInvalidArgument: return "Invalid Argument";
    case kNotSupported: return "Not Supported";
    case kTimeout: return "Timeout";
    case kGpuIsLost: return "GPU is lost";
    default: return "Unknown Error";
  }
}

Return nvmlSystemGetDriverVersion(char* buf, unsigned len) {
  std::lock_guard<std::mutex> lock(S().mu);
  CopyOut(Value(S().spec, "driver", std::string("580.65.06")), buf, len);
  return kSuccess;
}

Return nvmlSystemGetCudaDriverVersion_v2(int* v) {
  std::lock_guard<std::mutex> lock(S().mu);
  *v = Value(S().spec, "cuda", 13000);
  return kSuccess;
}

Return nvmlDeviceGetCount_v2(unsigned* n) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().ready) return kUninitialized;
  *n = static_cast<unsigned>(S().devices.size());
  return kSuccess;
}

Return nvmlDeviceGetHandleByIndex_v2(unsigned i, void** d) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().ready) return kUninitialized;
  if (i >= S().devices.size()) return kInvalidArgument;
  *d = &S().devices[i];
  return kSuccess;
}

Return nvmlDeviceGetName(void* d, char* buf, unsigned len) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = Check(d, false); r != kSuccess) return r;
  const std::string name = Value(S().spec, "name", std::string("NVIDIA H100 80GB HBM3"));
  CopyOut(Dev(d)->slot < 0 ? name : name + " MIG " + Dev(d)->profile, buf, len);
  return kSuccess;
}

Return nvmlDeviceGetUUID(void* d, char* buf, unsigned len) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = Check(d, false); r != kSuccess) return r;
  unsigned h = 2166136261u;
  for (unsigned char c : S().node) h = (h ^ c) * 16777619u;
  char uuid[64];
  if (Dev(d)->slot >= 0) {
    std::snprintf(uuid, sizeof uuid, "MIG-%08x-%04x-5000-8000-%012x", h, Dev(d)->index, Dev(d)->slot + 1);
  } else {
    std::snprintf(uuid, sizeof uuid, "GPU-%08x-%04x-4000-8000-%012x", h, Dev(d)->index, Dev(d)->index + 1);
  }
  CopyOut(uuid, buf, len);
  return kSuccess;
}

Return nvmlDeviceGetMemoryInfo(void* d, Memory* m) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = Check(d, false); r != kSuccess) return r;
  m->total = static_cast<unsigned long long>(Value(S().spec, "memory_mb", 81559)) << 20;
  if (Dev(d)->slot >= 0) {  // "3g.40gb": 40 GiB
    const std::string& p = Dev(d)->profile;
    const size_t dot = p.find('.');
    m->total = static_cast<unsigned long long>(std::atoll(p.c_str() + (dot == std::string::npos ? 0 : dot + 1))) << 30;
  }
  m->free = m->total;
  m->used = 0;
  return kSuccess;
}

Return nvmlDeviceGetUtilizationRates(void* d, Utilization* u) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = CheckMetrics(d); r != kSuccess) return r;
  u->gpu = static_cast<unsigned>(10 * Dev(d)->index % 100);
  u->memory = static_cast<unsigned>(5 * Dev(d)->index % 100);
  return kSuccess;
}

Return nvmlDeviceGetTemperature(void* d, int sensor, unsigned* t) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = CheckMetrics(d); r != kSuccess) return r;
  if (sensor != 0) return kInvalidArgument;
  *t = static_cast<unsigned>(40 + Dev(d)->index);
  return kSuccess;
}

Return nvmlDeviceGetPowerUsage(void* d, unsigned* mw) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = CheckMetrics(d); r != kSuccess) return r;
  *mw = static_cast<unsigned>((100 + Dev(d)->index) * 1000);
  return kSuccess;
}

Return nvmlDeviceGetClockInfo(void* d, int which, unsigned* mhz) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = CheckMetrics(d); r != kSuccess) return r;
  if (which != 1 && which != 2) return kInvalidArgument;  // NVML_CLOCK_SM, NVML_CLOCK_MEM
  *mhz = which == 1 ? 1980 : 2619;
  return kSuccess;
}

Return nvmlDeviceGetPciInfo_v3(void* d, PciInfo* p) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = Check(d, false); r != kSuccess) return r;
  std::memset(p, 0, sizeof(*p));
  std::snprintf(p->bus_id, sizeof(p->bus_id), "00000000:%02X:00.0", 0x10 + Dev(d)->index);
  return kSuccess;
}

Return nvmlDeviceGetMinorNumber(void* d, unsigned* minor) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = Check(d, false); r != kSuccess) return r;
  *minor = static_cast<unsigned>(Dev(d)->index);
  return kSuccess;
}

Return nvmlDeviceGetCudaComputeCapability(void* d, int* major, int* minor) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = Check(d, false); r != kSuccess) return r;
  const bj::value* cc = At(S().spec, "cc");
  const bool given = cc != nullptr && cc->is_array() && cc->get_array().size() == 2 && cc->get_array()[0].is_int64() &&
                     cc->get_array()[1].is_int64();
  *major = given ? static_cast<int>(cc->get_array()[0].get_int64()) : 9;
  *minor = given ? static_cast<int>(cc->get_array()[1].get_int64()) : 0;
  return kSuccess;
}

// ---- MIG ---------------------------------------------------------------------------------------

Return nvmlDeviceGetMigMode(void* d, unsigned* current, unsigned* pending) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = Check(d, false); r != kSuccess) return r;
  // MIG-capable only where the file describes a MIG layout ("mig": {} for capable, all off).
  if (Dev(d)->slot >= 0 || At(S().spec, "mig") == nullptr) return kNotSupported;
  *current = *pending = S().migs.count(Dev(d)->index) ? 1 : 0;
  return kSuccess;
}

Return nvmlDeviceGetMaxMigDeviceCount(void* d, unsigned* n) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = Check(d, false); r != kSuccess) return r;
  *n = 7;
  return kSuccess;
}

Return nvmlDeviceGetMigDeviceHandleByIndex(void* d, unsigned i, void** out) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = Check(d, false); r != kSuccess) return r;
  auto it = S().migs.find(Dev(d)->index);
  if (it == S().migs.end() || i >= it->second.size()) return 6;  // NVML_ERROR_NOT_FOUND: an empty slot
  *out = &it->second[i];
  return kSuccess;
}

Return nvmlDeviceGetGpuInstanceId(void* d, unsigned* id) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = Check(d, false); r != kSuccess) return r;
  if (Dev(d)->slot < 0) return kNotSupported;
  *id = static_cast<unsigned>(Dev(d)->slot + 1);
  return kSuccess;
}

Return nvmlDeviceGetComputeInstanceId(void* d, unsigned* id) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = Check(d, false); r != kSuccess) return r;
  if (Dev(d)->slot < 0) return kNotSupported;
  *id = 0;
  return kSuccess;
}

// ---- Health ------------------------------------------------------------------------------------

Return nvmlDeviceGetTotalEccErrors(void* d, int error_type, int counter_type, unsigned long long* count) {
  std::lock_guard<std::mutex> lock(S().mu);
  Refresh();
  if (Return r = Check(d); r != kSuccess) return r;
  // Uncorrected (1), volatile (0): what the agent asks; other counters are 0.
  *count = error_type == 1 && counter_type == 0 ? FaultsOf(Dev(d)->index).ecc_dbe : 0;
  return kSuccess;
}

Return nvmlDeviceGetRemappedRows(void* d, unsigned* corrected, unsigned* uncorrected, unsigned* pending,
                                 unsigned* failure) {
  std::lock_guard<std::mutex> lock(S().mu);
  Refresh();
  if (Return r = Check(d); r != kSuccess) return r;
  const Faults f = FaultsOf(Dev(d)->index);
  *corrected = 0;
  *uncorrected = f.remap_pending || f.remap_failed ? 1 : 0;
  *pending = f.remap_pending ? 1 : 0;
  *failure = f.remap_failed ? 1 : 0;
  return kSuccess;
}

Return nvmlDeviceGetCurrentClocksThrottleReasons(void* d, unsigned long long* reasons) {
  std::lock_guard<std::mutex> lock(S().mu);
  Refresh();
  if (Return r = Check(d); r != kSuccess) return r;
  *reasons = FaultsOf(Dev(d)->index).throttle;
  return kSuccess;
}

struct FakeEventSet {
  std::vector<int> gpus;
};

Return nvmlEventSetCreate(FakeEventSet** set) {
  *set = new FakeEventSet();
  return kSuccess;
}

Return nvmlDeviceRegisterEvents(void* d, unsigned long long types, FakeEventSet* set) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (Return r = Check(d, false); r != kSuccess) return r;
  if ((types & kEventXid) != 0) set->gpus.push_back(Dev(d)->index);
  return kSuccess;
}

Return nvmlDeviceGetSupportedEventTypes(void* d, unsigned long long* types) {
  *types = kEventXid;
  return d == nullptr ? kInvalidArgument : kSuccess;
}

// Delivers the next undelivered Xid of a registered GPU, or waits (in short steps, reading the
// file again) until the timeout.
Return nvmlEventSetWait_v2(FakeEventSet* set, EventData* data, unsigned timeout_ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    {
      std::lock_guard<std::mutex> lock(S().mu);
      Refresh();
      for (int gpu : set->gpus) {
        const std::vector<int> xids = FaultsOf(gpu).xids;
        size_t& delivered = S().xids_delivered[gpu];
        if (delivered < xids.size()) {
          std::memset(data, 0, sizeof(*data));
          data->device = &S().devices[static_cast<size_t>(gpu)];
          data->event_type = kEventXid;
          data->event_data = static_cast<unsigned long long>(xids[delivered++]);
          return kSuccess;
        }
      }
    }
    if (std::chrono::steady_clock::now() >= end) return kTimeout;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<unsigned>(timeout_ms, 100)));
  }
}

Return nvmlEventSetFree(FakeEventSet* set) {
  delete set;
  return kSuccess;
}

}  // extern "C"
#pragma GCC visibility pop
