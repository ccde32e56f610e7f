// The judge of one worker of a Ray run (python/ragmeter/ray.py), made once per worker
// through the library's factory (judge_factory.h: make_judge, with JudgeOptions::hooks
// when the run shares a rate limit, a budget and a cache): its client asks a shared
// PermitSource for every request and keeps its replies, verdicts and claims in a shared
// ReplyStore (include/ragmeter/judge_hooks.h), both implemented by Python callables that
// talk to the run's actors. The callables are called from the client's threads with the
// GIL taken for the call only. The driver makes one too, without hooks, for the
// summary's judge block and the metric list.
#pragma once

#include <utility>

#include "ragmeter/judge_factory.h"

namespace ragmeter::python {

class ClusterJudge {
 public:
  explicit ClusterJudge(ConfiguredJudge judge) : judge_(std::move(judge)) {}
  // Stops the clients with the GIL released: a client's loop thread may be waiting for
  // the GIL in a callback.
  ~ClusterJudge() { close(); }

  const ConfiguredJudge& configured() const { return judge_; }
  void close();

 private:
  ConfiguredJudge judge_;
};

}  // namespace ragmeter::python
