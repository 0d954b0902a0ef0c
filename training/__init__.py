"""Everything that trains a model (the learned ranker, the decision, the fine-tuned encoder, the answerability
model, the support scorer), each cross-validated leave-one-set-out. Above evaluation, which it uses;
question-time code (`retrieval/`, the servers) never imports it (an import contract says so)."""
