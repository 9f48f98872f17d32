// A Store kept in the process's memory: the simulator's (muster sim replays a trace through the
// real controller with it) and tests'. It keeps the Store contract within one process: a save is
// "committed" when the call returns, and reopening the same MemoryStoreData sees everything saved
// (store_contract_test.cc runs it with the other stores). Nothing outlives the process: never the
// store of a real controller.
#pragma once

#include <cstdint>
#include <memory>

#include "store/store.h"

namespace muster {

struct MemoryStoreData;

// The data one or more MemoryStores share (each open of the same data sees the same records).
std::shared_ptr<MemoryStoreData> NewMemoryStoreData(int64_t first_job_id = 1);

// A store on `data` (a fresh one when null).
std::unique_ptr<Store> OpenMemoryStore(std::shared_ptr<MemoryStoreData> data = nullptr);

}  // namespace muster
