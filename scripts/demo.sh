#!/usr/bin/env bash
# The main job: ingest 29 CFR 1926 and the rules next door (Parts 1902-1908, the OSH Act), build the dual graph
# (navigator + entity network), load OSHA's letters as precedents, train what `ask` learns (the ranker, when to
# answer, the decision, which rulebook answers), show the figures and a provision, then answer a multi-hop question.
# Validated figures are not recomputed here (docs/results.md has them with their commands): the models are
# fitted and stored, every choice in them still made out of fold.
set -euo pipefail
BIFROST=${1:-bifrost}
SHARED="${BIFROST_SHARED_DIR:-../shared}"
echo "== 1/6 ingest 29 CFR 1926 and build the Document Navigator Graph (state in ${BIFROST_HOME:-~/.bifrost})"
"$BIFROST" ingest --corpus osha-1926
echo "== 2/6 build the Entity Network Graph (offline extractor; a few minutes on 2 cores)"
"$BIFROST" build entities --corpus osha-1926
if [[ -d "$SHARED/corpora/osha-1900-1909" && -d "$SHARED/corpora/osh-act" ]]; then
  echo "   ... and the rules next door: 29 CFR 1902-1908 (recordkeeping, posting, inspections) and the OSH Act"
  for corpus in osha-1900-1909 osh-act; do
    "$BIFROST" ingest --corpus "$corpus"
    "$BIFROST" build entities --corpus "$corpus"
  done
fi
LETTERS_BANK="$SHARED/precedents/osha-letters-1926.jsonl"
OTHER_PARTS="$SHARED/precedents/osha-letters-other-parts.jsonl"
if [[ -f "$LETTERS_BANK" ]]; then
  echo "   ... and OSHA's letters of interpretation as precedents (answered questions and the provisions they cite)"
  "$BIFROST" precedents import "$LETTERS_BANK" --corpus osha-1926 --issuer OSHA
  if [[ -f "$OTHER_PARTS" ]]; then  # answered under other parts: where a refusal points, never a vote
    "$BIFROST" precedents import "$OTHER_PARTS" --corpus osha-1926 --issuer OSHA
    [[ -d "$SHARED/corpora/osha-1900-1909" ]] && \
      "$BIFROST" precedents import "$OTHER_PARTS" --corpus osha-1900-1909 --issuer OSHA
  fi
fi
echo "== 3/6 train the ranker, when to answer, and the decision (fitted on every question set; a few minutes)"
LETTERS="$SHARED/eval/osha-loi-dev.jsonl"
SITE="$SHARED/eval/osha-site-questions.jsonl"   # written outside the project: held out, never trained on
REAL="$SHARED/eval/osha-real-dev.jsonl"         # people's own words: the decision's verdicts learn from its labels
OURS=(eval/questions/osha-near-domain.jsonl eval/questions/osha-natural-train.jsonl eval/questions/osha-natural-dev.jsonl)
if [[ -f "$LETTERS" ]]; then
  HELD=(); [[ -f "$SITE" ]] && HELD=(--held-out "$SITE")
  RANKER_SETS=(-q "$LETTERS"); for f in "${OURS[@]}"; do RANKER_SETS+=(-q "$f"); done
  "$BIFROST" train ranker --corpus osha-1926 "${RANKER_SETS[@]}" --no-cv
  echo "   ... when to answer, say \"not stated\" or refuse (thresholds chosen with each set left out)"
  "$BIFROST" train answerability --corpus osha-1926 "${RANKER_SETS[@]}" -q eval/questions/osha-unanswerable.jsonl \
    "${HELD[@]}" --no-ablations
  echo "   ... and the decision: the governing rule, how sure, the verdict, what to cite"
  DECISION_SETS=(-q eval/questions/osha-natural-train.jsonl -q eval/questions/osha-natural-dev.jsonl)
  [[ -f "$REAL" ]] && DECISION_SETS+=(-q "$REAL")
  "$BIFROST" train decision --corpus osha-1926 "${DECISION_SETS[@]}" --no-validate
  if [[ -d "$SHARED/corpora/osha-1900-1909" ]]; then
    echo "   ... and which rulebook answers a question (learned from the letters, validated forward in time)"
    "$BIFROST" train router
  fi
else
  echo "no $LETTERS: ask uses the hand-set hybrid ranking"
fi
echo "== 4/6 the dual graph"
"$BIFROST" graph stats --corpus osha-1926
echo "== 5/6 a provision with its cross-references"
"$BIFROST" graph show "1926.502(k)" --corpus osha-1926
echo "== 6/6 ask"
time "$BIFROST" ask "Can a combination of a warning line system and personal fall arrest system be used for all types of leading-edge work?"
