// `bloomroute lab EXPERIMENT`: runs one of the filter lab's experiments (or
// `all`) and prints the markdown tables it measured; with --markdown-out it
// also writes them, spliced into a discussion template, to a file (this is how
// docs/filters.md is made). See lab/experiments/experiments.h.
#ifndef BLOOMROUTE_TOOLS_LAB_COMMAND_H_
#define BLOOMROUTE_TOOLS_LAB_COMMAND_H_

#include <cstdint>
#include <memory>
#include <string>

#include "tools/command.h"

namespace bloomroute {

std::unique_ptr<Command> MakeLabCommand();

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_LAB_COMMAND_H_
