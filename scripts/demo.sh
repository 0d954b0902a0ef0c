#!/usr/bin/env bash
# The main job: ingest 29 CFR 1926, build the dual graph (navigator + entity network), show
# its figures and a provision with its cross-references, then answer a multi-hop question.
set -euo pipefail
BIFROST=${1:-bifrost}
echo "== 1/5 ingest 29 CFR 1926 and build the Document Navigator Graph (state in ${BIFROST_HOME:-~/.bifrost})"
"$BIFROST" ingest --corpus osha-1926
echo "== 2/5 build the Entity Network Graph (offline extractor; a few minutes on 2 cores)"
"$BIFROST" build entities --corpus osha-1926
echo "== 3/5 train the ranker on the dev letters (5-fold cross-validated figures first; a few minutes)"
QUESTIONS="${BIFROST_SHARED_DIR:-../shared}/eval/osha-loi-dev.jsonl"
if [[ -f "$QUESTIONS" ]]; then
  "$BIFROST" train ranker --corpus osha-1926 --questions "$QUESTIONS" --no-ablations
  echo "   ... and when to refuse (near-domain questions whose answer is not in Part 1926; cross-validated)"
  "$BIFROST" train answerability --corpus osha-1926 --questions eval/questions/osha-near-domain.jsonl \
    --questions "$QUESTIONS" --questions eval/questions/osha-unanswerable.jsonl
else
  echo "no $QUESTIONS: ask uses the hand-set hybrid ranking"
fi
echo "== 4/5 the dual graph"
"$BIFROST" graph stats --corpus osha-1926
"$BIFROST" graph show "1926.502(k)" --corpus osha-1926
echo "== 5/5 ask"
time "$BIFROST" ask "Can a combination of a warning line system and personal fall arrest system be used for all types of leading-edge work?" --corpus osha-1926
