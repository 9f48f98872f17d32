#include <cstdio>

int main(int argc, char** argv) {
  std::fprintf(stderr, "usage: muster <command>\n");
  return 2;
}
