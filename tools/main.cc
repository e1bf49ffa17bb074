#include "tools/command.h"

int main(int argc, char** argv) {
  return bloomroute::RunBloomroute(argc, argv);
}
