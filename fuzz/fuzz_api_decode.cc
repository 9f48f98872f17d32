// The API's request decoders: every body a caller can send to the controller (submissions, steps,
// updates, policy changes, the agents' registrations, heartbeats and exit reports) and the agent
// (launches, steps). Bytes in, through the same depth-limited parser the servers use.
#include <cstdint>

#include "agent/step_runner.h"
#include "api/decode.h"
#include "api/slurmrest/submit.h"
#include "wire/diag.h"
#include "wire/agent.h"
#include "wire/jobs.h"
#include "wire/policy.h"
#include "wire/records.h"
#include "wire/submit.h"
#include "wire/why.h"
#include "base/pretty_json.h"
#include "fuzz/fuzz_util.h"
#include "model/record_json.h"
#include "net/json_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace muster;
  const std::string text = fuzz::Text(data, size);
  StatusOr<wire::bj::value> body = ParseRequestBody(text);
  (void)StepLaunchFromJson(text);  // the agent parses its own
  // The wire types, through their one codec (Boost.JSON).
  (void)wire::Decode<Heartbeat>(text);
  (void)wire::Decode<ExitNotice>(text);
  (void)wire::Decode<NodeOrders>(text);
  (void)wire::Decode<ServedConfig>(text);
  (void)wire::Decode<ExitCode>(text);
  (void)wire::Decode<JobSpec>(text);
  (void)wire::Decode<JobUpdate>(text);
  (void)wire::Decode<NodeUpdate>(text);
  (void)wire::Decode<PolicyOp>(text);
  (void)wire::Decode<StepAnswer>(text);
  (void)wire::Decode<PolicyAnswer>(text);
  (void)wire::Decode<DiagAnswer>(text);
  (void)wire::Decode<SignalOrder>(text);
  (void)wire::Decode<StepSignal>(text);
  (void)wire::Decode<NodesAnswer>(text);
  (void)wire::Decode<StepsAnswer>(text);
  (void)wire::Decode<JwtRequest>(text);
  (void)wire::Decode<WhyAnswer>(text);
  // slurmrestd's v0.0.38 bodies (api/slurmrest/submit.h).
  (void)slurmrest::ReadSubmission(text);
  (void)slurmrest::ReadUpdate(text);
  if (StatusOr<StepCreate> s = wire::Decode<StepCreate>(text); s.ok()) (void)ToStepRequest(*s);
  if (StatusOr<NodeReport> r = wire::Decode<NodeReport>(text); r.ok()) (void)wire::CheckedNodeReport(std::move(*r));
  if (!body.ok()) return 0;
  // The records' codec inside the agents' bodies, read from the one parse as the servers do.
  if (StatusOr<LaunchOrder> launch = wire::FromValue<LaunchOrder>(*body); launch.ok() && launch->job) {
    (void)wire::Encode(*launch);
  }
  (void)wire::FromValue<Registration>(*body);
  // What the controller answers with may be any of it, written out: it must not recurse away either.
  (void)PrettyJson(*body, -1);
  return 0;
}
