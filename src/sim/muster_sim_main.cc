// muster-sim: the offline tools, apart from the commands' binary so that `muster` (sbatch, squeue,
// ... run by users many times a second) links no controller, store or simulator. `muster sim` and
// `muster place` run this program (installed beside `muster`):
//   muster-sim sim openb|philly|swf ...   the scheduling-quality benchmarks (docs/simulator.md)
//   muster-sim place ...                  one scheduling cycle over a cluster file (docs/placement.md)
//   muster-sim admin migrate ...          copy a controller's state between stores (sim/admin_command.h)
#include <iostream>
#include <string>
#include <vector>

#include "sim/admin_command.h"
#include "sim/place_command.h"
#include "sim/sim_command.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::string command = args.empty() ? "" : args.front();
  if (!args.empty()) args.erase(args.begin());
  if (command == "sim") return muster::SimMain(args, std::cout, std::cerr);
  if (command == "place") return muster::PlaceMain(args, std::cout, std::cerr);
  if (command == "admin") return muster::AdminMain(args, std::cout, std::cerr);
  std::cerr << "usage: muster-sim sim openb|philly|swf ... | muster-sim place ... | muster-sim admin migrate ...\n"
               "  (run by `muster sim`, `muster place` and `muster admin`)\n";
  return 2;
}
