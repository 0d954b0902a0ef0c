"""The reader: one cross-encoder that reads a question with a provision (or one of its sentences) and
scores whether it states what the question asks. It decides what an answer cites, when the text does
not state it, and which sentence gives a yes/no verdict (`apply.py`); `model.py` loads the ONNX int8
model at question time, `examples.py` builds its training pairs, `train.py` fine-tunes and exports it."""
