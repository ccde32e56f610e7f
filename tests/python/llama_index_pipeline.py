"""A real LlamaIndex RAG pipeline put through ragmeter.run (driven by
test_run_llama_index.py, in the LlamaIndex venv of scripts/setup_llamaindex.sh).

The pipeline is LlamaIndex's own: SimpleDirectoryReader over tests/python/data/rag_docs,
a VectorStoreIndex, and a query engine (top 2 nodes) answering with the local llama.cpp
server through OpenAILike. Its embeddings come from the same server's OpenAI-compatible
/v1/embeddings (OpenAILikeEmbedding): real vectors computed here, offline, by code nobody
on this project wrote. Prints one JSON object: the run's rows and summary, and what
LlamaIndex's own retriever returns for each question (the oracle for the contexts). The
questions are asked twice: through the sync adapter (engine.query) and the async one
(engine.aquery).

    python llama_index_pipeline.py DOCS_DIR QUESTIONS_JSONL OUT_JSONL
Environment: RAGMETER_JUDGE_URL, RAGMETER_JUDGE_MODEL, RAGMETER_EMBED_URL, RAGMETER_EMBED_MODEL.
"""

import json
import os
import sys

from llama_index.core import Settings, SimpleDirectoryReader, VectorStoreIndex
from llama_index.embeddings.openai_like import OpenAILikeEmbedding
from llama_index.llms.openai_like import OpenAILike

import ragmeter
from ragmeter import adapters

docs, questions_path, out = sys.argv[1:4]
# LlamaIndex counts tokens with tiktoken by default, which downloads its encoding at run
# time; word counts keep the chunking offline (each document is one chunk either way).
Settings.tokenizer = lambda text: text.split()
Settings.embed_model = OpenAILikeEmbedding(model_name=os.environ["RAGMETER_EMBED_MODEL"],
                                           api_base=os.environ["RAGMETER_EMBED_URL"], api_key="none")
Settings.llm = OpenAILike(model=os.environ["RAGMETER_JUDGE_MODEL"], api_base=os.environ["RAGMETER_JUDGE_URL"],
                          api_key="none", is_chat_model=True, max_tokens=48, temperature=0.0, timeout=900)

index = VectorStoreIndex.from_documents(SimpleDirectoryReader(docs).load_data())
engine = index.as_query_engine(similarity_top_k=2)
retriever = index.as_retriever(similarity_top_k=2)

questions = [json.loads(line) for line in open(questions_path)]
result = ragmeter.run(questions, adapters.llama_index(engine), out=out, concurrency=1, timeout=900,
                      max_attempts=1, progress=False, eval="k_precision")
# The async path: engine.aquery, LlamaIndex's async OpenAI client on ragmeter's event loop
# thread, the answers handed back to the C++ run loop through the completion callback.
async_result = ragmeter.run(questions, adapters.llama_index(engine, use_async=True), concurrency=1,
                            timeout=900, max_attempts=1, progress=False, record=False)
expected = []
for q in questions:
    nodes = retriever.retrieve(q["user_input"])
    expected.append({"contexts": [n.node.get_content() for n in nodes], "ids": [n.node.node_id for n in nodes]})
print(json.dumps({"rows": result.rows, "summary": result.summary, "expected": expected,
                  "eval": result.evaluation.summary, "async_rows": async_result.rows,
                  "async_summary": async_result.summary}))
