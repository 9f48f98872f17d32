// sbatch's options and #SBATCH directives: the first line of the input is the command line (words),
// the rest the batch script, read through the same parser as sbatch (options, script directives,
// then the resource options each request is made of).
#include <cstdint>

#include "cli/sbatch_args.h"
#include "fuzz/fuzz_util.h"
#include "model/job_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace muster;
  const std::string text = fuzz::Text(data, size);
  const size_t nl = text.find('\n');
  std::vector<std::string> args = fuzz::Words(text.substr(0, nl));
  const std::string script = nl == std::string::npos ? "" : text.substr(nl + 1);
  args.push_back("job.sh");
  (void)ParseSbatchArgs(args, "/tmp", [&](const std::string&) -> StatusOr<std::string> { return script; });
  (void)ParseJobRequest(fuzz::Words(text));
  (void)SbatchFirstOperand(args);
  return 0;
}
