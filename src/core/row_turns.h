// Rows scored at once take turns, in input order, where they share stored work
// (docs/design.md, "Same replies, same scores: rows take turns").
//
// The evaluation scores a batch's rows on several threads, and the LLM judge's rows share
// what they store: a sentence's claims, a (claim, passage) verdict. The row that asks
// first decides which call a shared entry comes from, and so what else that call holds,
// which changes the model's reply. For the scores to depend on the replies alone and not
// on which thread got there first, a row composes its calls at a place (a store) only
// after every row before it in the batch that may share work with it there has composed
// its own there, or said it will not, or ended: the requests are those of a run that
// scores one row after another.
//
// Internal to src/ (the evaluation loop sets the rows; the judge takes turns).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

#include "ragmeter/sample.h"

namespace ragmeter {

// Whether `row` may share stored work with the `earlier` row at a place: false only when
// nothing either asks there can be the other's (the LLM judge's compact plan: no common
// question, passage, reference or response). Null: any two rows may.
using MayShare = bool (*)(const Sample& row, const Sample& earlier);

// The turns of one batch of `rows` rows, numbered 0..rows-1 in input order. Thread-safe.
class RowTurns {
 public:
  explicit RowTurns(std::size_t rows) : samples_(rows, nullptr), ended_(rows, false) {}

  // Row `row` is scored now, its sample `sample` (null for a rejected row); the sample
  // outlives the row.
  void begin(std::size_t row, const Sample* sample);
  // Blocks until every row before `row` has passed its turn at `place` or ended, except
  // the rows `may_share` says share nothing with it (asked once a row has begun; a row
  // not begun yet is waited for).
  void wait(const void* place, std::size_t row, MayShare may_share = nullptr);
  // `row` has composed what it asks at `place` (or asks nothing there): later rows may go.
  void pass(const void* place, std::size_t row);
  // `row` is done (scored, rejected, or dropped): it passes every place, also the ones no
  // row has reached yet. Every row a scoring thread takes must end, or later rows wait.
  void end(std::size_t row);

 private:
  struct Place {
    std::vector<bool> passed;
    std::size_t first_open = 0;  // the first row that has neither passed here nor ended
  };
  Place& place_of(const void* place);  // under mutex_
  void advance(Place& place);          // under mutex_

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<const Sample*> samples_;
  std::vector<bool> ended_;
  std::map<const void*, Place> places_;
};

// The row the calling thread scores, for the judge's turns. While it lives, the judge's
// calls on this thread belong to row `row` of `turns`, whose sample is `sample` (null for
// a rejected row); when destroyed it ends the row.
class ScopedRow {
 public:
  ScopedRow(RowTurns& turns, std::size_t row, const Sample* sample);
  ~ScopedRow();
  ScopedRow(const ScopedRow&) = delete;
  ScopedRow& operator=(const ScopedRow&) = delete;

 private:
  RowTurns& turns_;
  std::size_t row_;
};

// The calling thread's row's turn at `place`: the constructor waits for it (for the
// earlier rows `may_share` says may share work with this one), the destructor passes it.
// A thread scoring no row of an evaluation (a judge called on its own, `gen`): nothing.
class RowTurn {
 public:
  explicit RowTurn(const void* place, MayShare may_share = nullptr);
  ~RowTurn();
  RowTurn(const RowTurn&) = delete;
  RowTurn& operator=(const RowTurn&) = delete;

 private:
  const void* place_;
};

// The calling thread's row asks nothing at `place`: it passes without waiting.
void pass_row_turn(const void* place);

}  // namespace ragmeter
