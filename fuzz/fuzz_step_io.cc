// The step I/O stream between srun and the agents: frames decoded from any bytes, fed in pieces
// as a socket delivers them; every frame decoded encodes and decodes to itself again.
#include <cstdint>

#include "fuzz/fuzz_util.h"
#include "net/step_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace muster;
  const std::string bytes = fuzz::Text(data, size);
  StepIoDecoder decoder;
  // Pieces of 1, 2, 3, ... bytes.
  for (size_t at = 0, piece = 1; at < bytes.size(); at += piece, ++piece) {
    decoder.Feed(std::string_view(bytes).substr(at, piece));
    while (true) {
      StatusOr<std::optional<StepIoFrame>> f = decoder.Next();
      if (!f.ok()) return 0;  // a malformed stream is dropped
      if (!f->has_value()) break;
      StepIoDecoder again;
      again.Feed(EncodeStepIoFrame(**f));
      StatusOr<std::optional<StepIoFrame>> back = again.Next();
      if (!back.ok() || !back->has_value() || EncodeStepIoFrame(**back) != EncodeStepIoFrame(**f)) __builtin_trap();
    }
  }
  return 0;
}
