// Interrupting an import: SIGINT (Ctrl-C) and SIGTERM set a flag instead of
// ending the process, and the import's loops (reading, copying standard
// input, sampling, the sinks) check it, stop, let their owners remove the
// temporary files (spooled input, bulk files) and return InterruptedStatus(),
// so that the command exits non-zero after printing what was acknowledged.
//
// The handlers are installed with SA_RESETHAND: a second signal has the
// default effect (the process ends at once, temporary files may stay). They
// are not SA_RESTART, so that a read blocked on a pipe returns (EINTR) and
// the loop sees the flag.
//
// Thread-safety: the flag may be read from any thread; Install and Reset are
// for the main thread.
#ifndef BLOOMROUTE_TOOLS_IMPORT_INTERRUPT_H_
#define BLOOMROUTE_TOOLS_IMPORT_INTERRUPT_H_

#include "common/status.h"

namespace bloomroute {

// Installs the SIGINT and SIGTERM handlers (see above).
void InstallImportInterruptHandlers();
// True once SIGINT or SIGTERM arrived after InstallImportInterruptHandlers.
bool ImportInterrupted();
// Aborted, naming the signal that came ("interrupted by SIGINT ...").
Status InterruptedStatus();
// Clears the flag (tests).
void ResetImportInterrupt();

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_IMPORT_INTERRUPT_H_
