#include "sched/statement.h"

namespace muster {

Statement::Statement(const Ledgers& ledgers) : ledgers_(ledgers) { Checkpoint(); }

void Statement::Checkpoint() {
  if (ledgers_.plan != nullptr) plan_mark_ = ledgers_.plan->Mark();
  if (ledgers_.claims != nullptr) claims_mark_ = ledgers_.claims->Mark();
  if (ledgers_.timeline != nullptr) timeline_mark_ = ledgers_.timeline->Mark();
  if (ledgers_.out != nullptr) out_mark_ = ledgers_.out->size();
  uses_.clear();
  doomed_.clear();
}

void Statement::AddUse(LimitGate& gate, const JobUse& use, int sign) {
  gate.Add(use, sign);
  uses_.push_back({&gate, use, sign});
}

void Statement::Doom(int64_t id) {
  if (ledgers_.doomed->insert(id).second) doomed_.push_back(id);
}

void Statement::Rollback() {
  for (auto it = uses_.rbegin(); it != uses_.rend(); ++it) it->gate->Add(it->use, -it->sign);
  for (int64_t id : doomed_) ledgers_.doomed->erase(id);
  if (ledgers_.plan != nullptr) ledgers_.plan->Rollback(plan_mark_);
  if (ledgers_.claims != nullptr) ledgers_.claims->Rollback(claims_mark_);
  if (ledgers_.timeline != nullptr) ledgers_.timeline->Rollback(timeline_mark_);
  if (ledgers_.out != nullptr) ledgers_.out->resize(out_mark_);
  Checkpoint();
}

void Statement::Commit() { Checkpoint(); }

}  // namespace muster
