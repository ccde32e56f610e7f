// SIGINT and SIGTERM in the subcommands (the contract: docs/output.md, exit code 130).
//
// A command that scores or asks (eval, run, gen) stops gracefully: the first signal sets
// stop_flag(), which the command passes on as its run's cancel flag; it then stops
// starting work, ends or abandons what is in flight, writes what finished and a summary
// marked cancelled, and exits 130. A second signal ends the process at once. A command
// that only writes a file from its input (report, compare) ends at once on the first signal.
// Either way an OutputFile that was not committed is removed, so an output is whole or
// absent, never half written.
#pragma once

#include <atomic>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "ragmeter/llm.h"
#include "ragmeter/status.h"

namespace ragmeter::cli {

enum class StopMode {
  kGraceful,   // the first signal sets stop_flag(); a second ends the process (exit 130)
  kImmediate,  // the first signal ends the process (exit 130)
};

// Installs the handlers of SIGINT and SIGTERM. Call once, first thing in the command, so a
// signal that comes while the command sets up is heard too.
void install_stop_handlers(StopMode mode);

// Set by the first signal (kGraceful). Lives for the whole process.
const std::atomic<bool>& stop_flag();
bool stop_requested();

// Cancels judge clients (llm::Client::cancel: the calls in flight are abandoned) once a
// stop was requested. poll() is cheap: call it from the run's progress callbacks, on any
// thread. Null clients are left out.
class ClientCanceller {
 public:
  ClientCanceller(std::initializer_list<llm::Client*> clients);
  void poll();

 private:
  std::vector<llm::Client*> clients_;
  std::atomic<bool> done_{false};
};

// An output written whole or not at all: the text goes to a temporary file beside `path`
// (PATH.tmp-PID), which commit() renames onto `path`. Until then `path` keeps what it
// held. The temporary is removed by the destructor when not committed, and by the stop
// handlers before they end the process. A path that is a device or a pipe (/dev/stdout)
// is written directly instead. Not thread-safe.
class OutputFile {
 public:
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // False when the temporary file could not be created.
  bool is_open() const { return out_.is_open(); }
  std::ostream& stream() { return out_; }
  // Closes the file and renames it onto the path. InvalidArgument naming the path and the
  // system's reason when it could not be created at all (a missing folder: the caller's
  // path, exit code 2); Unavailable when writing or renaming failed later (a full disk:
  // exit code 4). The temporary is removed either way.
  Status commit();

 private:
  std::string path_;
  std::string temporary_;
  int slot_ = -1;  // in the handlers' list of temporaries; -1 when not listed
  std::ofstream out_;
  bool committed_ = false;
  bool direct_ = false;  // a device or a pipe: no temporary
  int open_errno_ = 0;   // why the file could not be created; 0 when it was
};

}  // namespace ragmeter::cli
