// nvml_probe: prints what DiscoverNvmlGpus sees on this machine as JSON, plus the raw NVML
// answers behind it (names, bus ids, MIG mode, every NVLink's state and remote end), so a
// discovery result can be checked against `nvidia-smi topo -m` on a real GPU host. Needs no CUDA
// to build; needs libnvidia-ml.so.1 (the driver) to find anything. Exit status: 0 on success,
// 2 when NVML is absent, 1 on any other error.
#include <unistd.h>

#include <iostream>
#include <string>

#include <boost/json.hpp>

#include "agent/gpu_inventory.h"
#include "base/pretty_json.h"
#include "agent/nvml_api.h"
#include "model/node.h"
#include "model/record_json.h"

namespace {

using muster::nvml::Device;
using muster::nvml::NvmlApi;

boost::json::object RawDevice(const NvmlApi& api, Device d) {
  boost::json::object j;
  char buf[muster::nvml::kNameBufferSize] = {0};
  j["name_rc"] = api.name(d, buf, sizeof(buf));
  j["name"] = static_cast<const char*>(buf);
  muster::nvml::PciInfo pci{};
  j["pci_rc"] = api.pci_info(d, &pci);
  j["bus_id"] = static_cast<const char*>(pci.bus_id);
  unsigned int value = 0;
  if (api.minor_number != nullptr) {
    j["minor_rc"] = api.minor_number(d, &value);
    j["minor"] = value;
  }
  if (api.numa_node_id != nullptr) {
    value = 0;
    j["numa_rc"] = api.numa_node_id(d, &value);
    j["numa"] = value;
  }
  if (api.mig_mode != nullptr) {
    unsigned int current = 0, pending = 0;
    j["mig_rc"] = api.mig_mode(d, &current, &pending);
    j["mig_current"] = current;
    j["mig_pending"] = pending;
  }
  boost::json::array links = boost::json::array();
  if (api.nvlink_state != nullptr) {
    for (unsigned int l = 0; l < muster::nvml::kMaxNvLinks; ++l) {
      boost::json::object link;
      int active = 0;
      link["link"] = l;
      link["state_rc"] = api.nvlink_state(d, l, &active);
      link["active"] = active;
      if (active == muster::nvml::kFeatureEnabled && api.nvlink_remote_pci != nullptr) {
        muster::nvml::PciInfo remote{};
        link["remote_rc"] = api.nvlink_remote_pci(d, l, &remote);
        link["remote_bus_id"] = static_cast<const char*>(remote.bus_id);
        if (api.nvlink_remote_type != nullptr) {
          int type = -1;
          link["type_rc"] = api.nvlink_remote_type(d, l, &type);
          link["remote_type"] = type;
        }
      }
      links.push_back(link);
    }
  }
  j["nvlinks"] = links;
  return j;
}

boost::json::object RawDump(const NvmlApi& api) {
  boost::json::object raw;
  muster::nvml::Return r = api.init();
  raw["init_rc"] = r;
  if (r != muster::nvml::kSuccess) return raw;
  unsigned int count = 0;
  raw["count_rc"] = api.device_count(&count);
  boost::json::array devices = boost::json::array();
  for (unsigned int i = 0; i < count; ++i) {
    Device d = nullptr;
    if (api.handle_by_index(i, &d) != muster::nvml::kSuccess) continue;
    devices.push_back(RawDevice(api, d));
  }
  raw["devices"] = devices;
  boost::json::object symbols;
  symbols["nvmlDeviceGetNumaNodeId"] = api.numa_node_id != nullptr;
  symbols["nvmlDeviceGetNvLinkRemoteDeviceType"] = api.nvlink_remote_type != nullptr;
  symbols["nvmlDeviceGetAttributes_v2"] = api.attributes != nullptr;
  symbols["nvmlDeviceGetMigMode"] = api.mig_mode != nullptr;
  raw["symbols"] = symbols;
  api.shutdown();
  return raw;
}

}  // namespace

int main() {
  boost::json::object out;
  muster::StatusOr<muster::GpuInventory> inv = muster::DiscoverNvmlGpus();
  if (!inv.ok()) {
    out["error"] = inv.status().ToString();
    std::cout << muster::PrettyJson(out) << "\n";
    return inv.status().code() == muster::StatusCode::kNotFound ? 2 : 1;
  }
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  muster::Node node;
  node.name = host;
  node.gpus = inv->gpus;
  node.links = inv->links;
  out["source"] = inv->source;
  out["node"] = muster::ToJson(node);
  out["minors"] = boost::json::value_from(inv->minors);
  out["nvswitch"] = inv->links.nvswitch();
  boost::json::array matrix = boost::json::array();
  for (int a = 0; a < inv->links.size(); ++a) {
    boost::json::array row = boost::json::array();
    for (int b = 0; b < inv->links.size(); ++b) row.push_back(inv->links.links(a, b));
    matrix.push_back(row);
  }
  out["link_matrix"] = matrix;
  muster::StatusOr<std::unique_ptr<muster::nvml::NvmlLibrary>> lib = muster::nvml::NvmlLibrary::Load();
  if (lib.ok()) out["raw"] = RawDump((*lib)->api());
  std::cout << muster::PrettyJson(out) << "\n";
  return 0;
}
