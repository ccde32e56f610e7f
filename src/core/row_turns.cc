#include "core/row_turns.h"

namespace ragmeter {
namespace {

struct CurrentRow {
  RowTurns* turns = nullptr;
  std::size_t row = 0;
};

thread_local CurrentRow current_row;

}  // namespace

RowTurns::Place& RowTurns::place_of(const void* place) {
  auto [it, added] = places_.try_emplace(place);
  if (added) {
    it->second.passed.assign(ended_.size(), false);
    advance(it->second);
  }
  return it->second;
}

void RowTurns::advance(Place& place) {
  while (place.first_open < ended_.size() &&
         (place.passed[place.first_open] || ended_[place.first_open])) {
    ++place.first_open;
  }
}

void RowTurns::begin(std::size_t row, const Sample* sample) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (row >= samples_.size()) return;
  samples_[row] = sample;
  changed_.notify_all();  // rows waiting to learn whether this one shares their work
}

void RowTurns::wait(const void* place, std::size_t row, MayShare may_share) {
  std::unique_lock<std::mutex> lock(mutex_);
  // What may_share said of each earlier row, asked once a row has begun.
  enum Sharing : unsigned char { kUnknown, kApart, kShares };
  std::vector<Sharing> sharing(row, kUnknown);
  changed_.wait(lock, [&] {
    const Place& at = place_of(place);
    const Sample* self = row < samples_.size() ? samples_[row] : nullptr;
    for (std::size_t r = at.first_open; r < row; ++r) {
      if (at.passed[r] || ended_[r]) continue;
      if (sharing[r] == kUnknown && may_share != nullptr && self != nullptr &&
          samples_[r] != nullptr) {
        sharing[r] = may_share(*self, *samples_[r]) ? kShares : kApart;
      }
      if (sharing[r] != kApart) return false;
    }
    return true;
  });
}

void RowTurns::pass(const void* place, std::size_t row) {
  std::lock_guard<std::mutex> lock(mutex_);
  Place& at = place_of(place);
  if (row >= at.passed.size() || at.passed[row]) return;
  at.passed[row] = true;
  advance(at);
  changed_.notify_all();
}

void RowTurns::end(std::size_t row) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (row >= ended_.size() || ended_[row]) return;
  ended_[row] = true;
  for (auto& [key, place] : places_) advance(place);
  changed_.notify_all();
}

ScopedRow::ScopedRow(RowTurns& turns, std::size_t row, const Sample* sample)
    : turns_(turns), row_(row) {
  turns.begin(row, sample);
  current_row = {&turns, row};
}

ScopedRow::~ScopedRow() {
  current_row = {};
  turns_.end(row_);
}

RowTurn::RowTurn(const void* place, MayShare may_share) : place_(place) {
  if (current_row.turns != nullptr) current_row.turns->wait(place_, current_row.row, may_share);
}

RowTurn::~RowTurn() { pass_row_turn(place_); }

void pass_row_turn(const void* place) {
  if (current_row.turns != nullptr) current_row.turns->pass(place, current_row.row);
}

}  // namespace ragmeter
