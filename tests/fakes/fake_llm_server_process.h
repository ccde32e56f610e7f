// Starts the FAKE OpenAI-compatible server (fake_llm_server.cc) as a child process for
// tests and benchmarks, and stops it. Header-only; POSIX.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

extern char** environ;

namespace ragmeter::fakes {

class FakeLlmServerProcess {
 public:
  FakeLlmServerProcess() = default;
  FakeLlmServerProcess(const FakeLlmServerProcess&) = delete;
  FakeLlmServerProcess& operator=(const FakeLlmServerProcess&) = delete;
  ~FakeLlmServerProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }

  // Runs `path` with `arguments` plus "--port 0" and waits until it listens. False when
  // it cannot be started or does not say which port it took.
  bool start(const std::string& path, std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), {path, "--port", "0"});
    std::vector<char*> argv;
    for (std::string& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    int out[2];
    if (pipe(out) != 0) return false;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    int spawned = posix_spawn(&pid_, path.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    if (spawned != 0) {
      pid_ = -1;
      close(out[0]);
      return false;
    }
    FILE* stream = fdopen(out[0], "r");
    bool listening = std::fscanf(stream, "fake_llm_server listening on %d", &port_) == 1;
    std::fclose(stream);
    return listening;
  }

  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace ragmeter::fakes
