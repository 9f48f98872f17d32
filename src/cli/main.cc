// muster: the command-line tool. Dispatches to one command; each lives in its own file.
#include <iostream>
#include <string>
#include <vector>

#include "cli/place_command.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << muster::MusterUsage();
    return 2;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "-h" || command == "--help" || command == "help") {
    std::cout << muster::MusterUsage();
    return 0;
  }
  if (command == "place") return muster::PlaceMain(args, std::cout, std::cerr);
  std::cerr << "muster: unknown command '" << command << "'\n\n" << muster::MusterUsage();
  return 2;
}
