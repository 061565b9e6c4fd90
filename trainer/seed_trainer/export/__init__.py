"""What the extension takes from a run: model exports (HF, ONNX), the verl config export and what-if rescoring."""
