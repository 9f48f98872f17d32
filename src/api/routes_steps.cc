// Steps: srun's step creation and end, the step list, and sacct's steps.

#include "api/decode.h"
#include "wire/jobs.h"
#include "api/route_util.h"
#include "api/routes.h"
#include "wire/records.h"

namespace muster::api {

namespace bj = wire::bj;

void AddStepRoutes(Controller& c, Router& r) {
  // srun: a step of a running job, with where its tasks go (docs/api.md).
  r.Add("POST", "/v1/jobs/{id}/steps", kChangeBodyLimit, [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    StatusOr<StepCreate> wanted = wire::Decode<StepCreate>(req.body);
    if (!wanted.ok()) return ErrorResponse(wanted.status());
    StatusOr<StepRequest> decoded = ToStepRequest(*wanted);
    if (!decoded.ok()) return ErrorResponse(decoded.status());
    const StepRequest& s = *decoded;
    StatusOr<StepCreated> step = c.CreateStep(*id, s, req.caller);
    if (!step.ok()) return ErrorResponse(step.status());
    StepAnswer answer;
    answer.step_id = step->step.step_id;
    answer.ntasks = step->layout.ntasks;
    answer.time_limit_s = step->step.time_limit_s;
    answer.kill_wait_s = c.kill_wait_s();
    answer.warning = step->layout.warning;
    answer.job = step->job;
    for (size_t i = 0; i < step->nodes.size(); ++i) {
      StepNode node{step->nodes[i].node.name, step->nodes[i].agent_address, {}, std::nullopt};
      const int first = step->layout.first_task(i);
      for (int t = 0; t < step->layout.tasks[i]; ++t) node.tasks.push_back(first + t);
      if (i < step->step.node_gpus.size()) {
        node.gpus = step->step.node_gpus[i];
      } else if (s.gpus.given) {
        node.gpus = std::vector<int>{};  // none of the job's GPUs
      }
      answer.nodes.push_back(std::move(node));
    }
    return Ok(answer);
  });

  r.Add("POST", "/v1/jobs/{id}/steps/{step}/done", kChangeBodyLimit, [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    StatusOr<int64_t> step = ParseId(req.params.at("step"));
    if (!step.ok() || *step > 1 << 30) return ErrorResponse(InvalidArgument("Invalid step id specified"));
    StatusOr<ExitCode> done = wire::Decode<ExitCode>(req.body);
    if (!done.ok()) return ErrorResponse(done.status());
    Status st = c.FinishStep(*id, static_cast<int>(*step), done->exit_code, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok();
  });

  r.Add("GET", "/v1/steps", [&c](const HttpRequest&) {
    return Ok(StepsAnswer{c.ListSteps()});
  });
}

}  // namespace muster::api
