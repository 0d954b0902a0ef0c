#!/usr/bin/env bash
# The main job: ingest 29 CFR 1926, build the dual graph (navigator + entity network), show
# its figures and a provision with its cross-references, then answer a multi-hop question.
set -euo pipefail
BIFROST=${1:-bifrost}
echo "== 1/5 ingest 29 CFR 1926 and build the Document Navigator Graph (state in ${BIFROST_HOME:-~/.bifrost})"
"$BIFROST" ingest --corpus osha-1926
echo "== 2/5 build the Entity Network Graph (offline extractor; a few minutes on 2 cores)"
"$BIFROST" build entities --corpus osha-1926
SHARED="${BIFROST_SHARED_DIR:-../shared}"
LETTERS_BANK="$SHARED/precedents/osha-letters-1926.jsonl"
if [[ -f "$LETTERS_BANK" ]]; then
  echo "   ... and OSHA's letters of interpretation as precedents (answered questions and the provisions they cite)"
  "$BIFROST" precedents import "$LETTERS_BANK" --corpus osha-1926 --issuer OSHA
fi
echo "== 3/5 train the ranker on every question set the project has (each set left out in turn first; a few minutes)"
LETTERS="$SHARED/eval/osha-loi-dev.jsonl"
SITE="$SHARED/eval/osha-site-questions.jsonl"   # written outside the project: held out, never trained on
OURS=(eval/questions/osha-near-domain.jsonl eval/questions/osha-natural-train.jsonl eval/questions/osha-natural-dev.jsonl)
if [[ -f "$LETTERS" ]]; then
  HELD=(); [[ -f "$SITE" ]] && HELD=(--held-out "$SITE")
  RANKER_SETS=(-q "$LETTERS"); for f in "${OURS[@]}"; do RANKER_SETS+=(-q "$f"); done
  "$BIFROST" train ranker --corpus osha-1926 "${RANKER_SETS[@]}" "${HELD[@]}" --no-ablations
  echo "   ... and when to answer, say \"not stated\" or refuse (each set left out in turn)"
  "$BIFROST" train answerability --corpus osha-1926 "${RANKER_SETS[@]}" -q eval/questions/osha-unanswerable.jsonl \
    "${HELD[@]}" --no-ablations
else
  echo "no $LETTERS: ask uses the hand-set hybrid ranking"
fi
echo "== 4/5 the dual graph"
"$BIFROST" graph stats --corpus osha-1926
"$BIFROST" graph show "1926.502(k)" --corpus osha-1926
echo "== 5/5 ask"
time "$BIFROST" ask "Can a combination of a warning line system and personal fall arrest system be used for all types of leading-edge work?" --corpus osha-1926
