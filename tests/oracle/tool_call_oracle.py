"""Computes the tool-call metrics with ragas's or DeepEval's own code (the oracle side of
tests/oracle/test_tool_calls.py, which runs this file under the venv that has the library).

stdin: {"library": "ragas" | "deepeval", "cases": [{"called": [CALL...], "expected": [CALL...]}]}
with CALL = {"name", "args", "output"}; stdout: one JSON object per case, metric -> value.
ragas: ragas 0.4.3's ragas.metrics.collections ToolCallAccuracy (both orders), ToolCallF1,
fed a MultiTurnSample built from the row (so ragas's own validation runs). DeepEval: 4.3.1's
ToolCorrectnessMetric.measure on an LLMTestCase, every matching x evaluation_params, with a
model object that fails if called (no available_tools: the metric makes no LLM call).
"""

import asyncio
import json
import os
import sys
import warnings


def ragas_values(cases):
    from ragas.dataset_schema import MultiTurnSample
    from ragas.messages import AIMessage, HumanMessage, ToolCall
    from ragas.metrics.collections import ToolCallAccuracy, ToolCallF1

    strict, flexible, f1 = ToolCallAccuracy(), ToolCallAccuracy(strict_order=False), ToolCallF1()
    out = []
    for case in cases:
        # One ai message per call, as a conversation would carry them.
        messages = [HumanMessage(content="go")]
        for call in case["called"]:
            messages.append(AIMessage(content="", tool_calls=[ToolCall(name=call["name"], args=call["args"])]))
        sample = MultiTurnSample(
            user_input=messages,
            reference_tool_calls=[ToolCall(name=c["name"], args=c["args"]) for c in case["expected"]])
        values = {}
        for name, metric in (("ragas_tool_call_accuracy", strict),
                             ("ragas_tool_call_accuracy_flexible", flexible),
                             ("ragas_tool_call_f1", f1)):
            result = asyncio.run(metric.ascore(user_input=sample.user_input,
                                               reference_tool_calls=sample.reference_tool_calls))
            values[name] = result.value
        out.append(values)
    return out


def deepeval_values(cases):
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.models import DeepEvalBaseLLM
    from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams

    class NoModel(DeepEvalBaseLLM):
        def __init__(self):
            super().__init__("none")

        def load_model(self):
            return None

        def generate(self, *args, **kwargs):
            raise RuntimeError("the oracle has no LLM")

        async def a_generate(self, *args, **kwargs):
            raise RuntimeError("the oracle has no LLM")

        def get_model_name(self):
            return "none"

    params = {"": [], "input_parameters": [ToolCallParams.INPUT_PARAMETERS],
              "output": [ToolCallParams.OUTPUT],
              "input_parameters,output": [ToolCallParams.INPUT_PARAMETERS, ToolCallParams.OUTPUT]}
    matchings = {"deepeval_tool_correctness": {},
                 "deepeval_tool_correctness_ordered": {"should_consider_ordering": True},
                 "deepeval_tool_correctness_exact": {"should_exact_match": True}}
    metrics = {(name, key): ToolCorrectnessMetric(model=NoModel(), async_mode=False,
                                                  evaluation_params=evaluation_params, **flags)
               for name, flags in matchings.items() for key, evaluation_params in params.items()}

    def tool(call):
        return ToolCall(name=call["name"], input_parameters=call["args"], output=call.get("output"))

    out = []
    for case in cases:
        test_case = LLMTestCase(input="go", actual_output="done",
                                tools_called=[tool(c) for c in case["called"]],
                                expected_tools=[tool(c) for c in case["expected"]])
        values = {}
        for (name, key), metric in metrics.items():
            values[f"{name}|{key}"] = metric.measure(test_case, _show_indicator=False)
        out.append(values)
    return out


def main():
    request = json.load(sys.stdin)
    warnings.simplefilter("ignore")
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
    compute = ragas_values if request["library"] == "ragas" else deepeval_values
    for values in compute(request["cases"]):
        print(json.dumps(values))


if __name__ == "__main__":
    main()
