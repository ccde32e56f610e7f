// How many judge requests to keep in flight: as many as the server works on at once,
// plus one waiting so it never idles between two, never above the configured ceiling.
//
// Two rules, the smaller wins (docs/design.md, "Adaptive concurrency", says why):
//   - AIMD: halve on overload (a 429, or an attempt abandoned because the server showed no
//     sign of life), at most once per window of requests; grow back by one per success,
//     up to the ceiling (the recovery of TCP's slow start: a server that recovered gets
//     its load back within about one window).
//   - Measured server parallelism: streamed replies show which of our requests the server
//     is generating (tokens arriving) and which only wait. The most requests seen
//     generating at once while another of ours waited is what the server serves at once,
//     k; the cap is k + 1. Latency that grows with the number in flight is exactly this:
//     requests beyond k only queue. The cap follows the last kWindow such observations,
//     so it rises again when the server frees up: the + 1 probes for it, and k + 1
//     requests generating at once with none waiting is an observation of k + 1.
//   - A server that says how many it serves at once (llama.cpp's /props total_slots)
//     sets the starting cap to that + 1.
//
// Thread-compatible, not thread-safe: the client uses it from its loop thread only.
#pragma once

#include <cstdint>
#include <deque>

namespace ragmeter::llm {

class AdaptiveLimit {
 public:
  static constexpr int kWindow = 8;  // parallelism observations the cap follows

  explicit AdaptiveLimit(int ceiling);

  // Requests that may be in flight now: min(AIMD limit, measured cap), at least 1.
  int limit() const;
  int ceiling() const { return ceiling_; }

  // The server announced `slots` parallel slots.
  void set_server_slots(int slots);

  // An attempt was admitted, with `ticket` (increasing); it ended (any way).
  void on_sent(std::uint64_t ticket);
  // A streamed attempt received its first tokens; it stopped generating (ended or was
  // cancelled). Each started attempt must end exactly once.
  void on_generation_start();
  void on_generation_end();
  // An attempt in flight without tokens yet started / stopped waiting.
  void on_waiting_change(int delta);

  void on_success();
  // Overload seen by the attempt of `ticket`: halves once per window (attempts admitted
  // before the last decrease do not halve again).
  void on_overload(std::uint64_t ticket);

  // The measured parallelism (0 before any observation) and the smallest limit so far.
  int measured_parallelism() const;
  int lowest_limit() const { return lowest_; }

 private:
  void observe();
  void note_limit();

  int ceiling_;
  double aimd_;
  int announced_cap_ = 0;  // from the server, 0: none
  std::deque<int> observations_;  // peak generating while others waited, newest last
  int generating_ = 0;
  int waiting_ = 0;
  int peak_ = 0;          // generating peak of the current observation
  bool saturated_ = false;  // someone waited during it
  std::uint64_t last_ticket_ = 0;
  std::uint64_t decrease_ticket_ = 0;
  int lowest_;
};

}  // namespace ragmeter::llm
