// Composes docs/filters.md: a hand-written discussion (a markdown template)
// with the lab's measured tables spliced in, so that no figure in the document
// is typed by hand.
//
// The template marks where each experiment's tables go with a line
//   <!-- lab:EXPERIMENT -->
// (e.g. <!-- lab:ddcf -->). Each such line is replaced by that experiment's
// report; a marker for an experiment that was not run becomes a line saying
// so, and reports without a marker are appended at the end. The document opens
// with the command that regenerates it and how long the run took.
#ifndef BLOOMROUTE_LAB_EXPERIMENTS_DOCUMENT_H_
#define BLOOMROUTE_LAB_EXPERIMENTS_DOCUMENT_H_

#include <string>
#include <vector>

#include "lab/experiments/report.h"

namespace bloomroute::lab {

std::string ComposeDocument(const std::string& discussion_template,
                            const std::vector<LabReport>& reports,
                            const std::string& regenerate_command,
                            double run_seconds);

}  // namespace bloomroute::lab

#endif  // BLOOMROUTE_LAB_EXPERIMENTS_DOCUMENT_H_
