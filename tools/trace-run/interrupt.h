#pragma once

// Ctrl-C during a long run: SIGINT and SIGTERM set a flag that the run loop reads after each
// iteration, so the iteration in progress finishes, the dump is written (marked interrupted)
// and trace-run exits with kExitInterrupted. The handler only stores to an atomic flag.

namespace etkit::tools {

/// Installs the handlers for SIGINT and SIGTERM (once per process; later calls do nothing).
void catch_interrupts();
/// True once SIGINT or SIGTERM arrived after `catch_interrupts`.
bool interrupt_requested();

}  // namespace etkit::tools
