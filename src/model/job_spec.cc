#include "model/job_spec.h"

#include <utility>

namespace muster {
namespace {

template <class Spec>
Status Set(Spec& spec, std::vector<std::string> args) {
  StatusOr<JobRequest> request = ParseJobRequest(args);
  if (!request.ok()) return request.status();
  spec.resources = std::move(request).value();
  spec.submit_args = std::move(args);
  return Status::Ok();
}

}  // namespace

Status SetResourceOptions(JobSpec& spec, std::vector<std::string> args) { return Set(spec, std::move(args)); }

Status SetResourceOptions(HetComponentSpec& component, std::vector<std::string> args) {
  return Set(component, std::move(args));
}

Status SetDependency(JobSpec& spec, std::string_view text) {
  StatusOr<DependencySpec> dependency = ParseDependency(text);
  if (!dependency.ok()) return InvalidArgument(std::string(kDependencyProblem));
  spec.dependency = std::move(dependency).value();
  return Status::Ok();
}

Status SetArray(JobSpec& spec, std::string_view text) {
  if (text.empty()) {  // not an array
    spec.array = {};
    return Status::Ok();
  }
  StatusOr<ArraySpec> array = ParseArraySpec(text);
  if (!array.ok()) return InvalidArgument(std::string(kArrayProblem));
  spec.array = std::move(array).value();
  return Status::Ok();
}

}  // namespace muster
