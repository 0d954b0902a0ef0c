"""Deontic reading of rules and of yes/no questions, for verdicts that the cited text decides.

Rules for any rulebook written in English, no fitted weights. A question is a yes/no question when
it asks for permission ("can we", "ok to", "is that fine", "allowed"), for a duty ("do we need",
"do I have to", "is ... required", "must") or whether something is forbidden; it may propose an
omission ("skip", "without", "instead of") and may claim a scope ("all types", "any"). A rule
sentence states an obligation (shall, must, is required), a prohibition (shall not, may not, is
prohibited, no employer shall), a permission (may, is permitted), a restriction (only), an
exception (except, unless, does not apply, need not) and limits on quantities ("not more than 14
inches"). `verdict` combines the two and answers only when the combination is unambiguous: no
verdict is better than a wrong one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from bifrost.graph_builders.citations.words import GENERIC, RulebookWords


class Asked(str, Enum):
    """What a yes/no question asks."""

    PERMISSION = "permission"  # can we / may we / is it ok / allowed
    OBLIGATION = "obligation"  # do we need / have to / must / is it required
    PROHIBITION = "prohibition"  # is it prohibited / illegal / banned
    NONE = "none"  # not a yes/no question


@dataclass(frozen=True)
class QuestionStance:
    """A question's yes/no reading: what it asks, whether it proposes leaving something out, whether it
    claims a scope over every case ("all types of", "any"), and whether it is a polar question at all
    ("is that a violation?", "OK on site?", "does subpart M apply to them"), asked in words the deontic
    patterns do not read."""

    asked: Asked
    omission: bool = False
    every: bool = False
    polar: bool = False

    @property
    def is_yes_no(self) -> bool:
        return self.asked is not Asked.NONE

    @property
    def answerable_yes_no(self) -> bool:
        """A question a yes, a no or a "depends" answers: deontic or polar."""
        return self.is_yes_no or self.polar


@dataclass(frozen=True)
class RuleStance:
    """What a rule sentence states."""

    obligation: bool = False
    prohibition: bool = False
    permission: bool = False
    restriction: bool = False  # "only"
    exception: bool = False  # except / unless / does not apply / need not
    not_required: bool = False  # "is not required", "need not"


class Decision(str, Enum):
    """What one rule sentence decides of a yes/no question (`core.types.Verdict` is the answer's record of
    it)."""

    YES = "yes"
    NO = "no"
    DEPENDS = "depends"


_PERMISSION_Q = re.compile(
    r"\b(?:can|could|may|might)\s+(?:we|i|you|they|he|she|the|a|an|my|our|his|their|it|one|this|that|these|those|\w+s?\b)"
    r"|\b(?:ok|okay|alright|all "
    r"right|fine|good|legal|acceptable|allowed|permitted|legit|cool)\b\s*(?:to|if|for|\?|$|,|right|with|that)"
    r"|\b(?:is|are)\s+(?:it|that|this|they|we)\s+(?:ok|okay|alright|fine|good|legal|acceptable|allowed|permitted)\b"
    r"|\b(?:that|this|it)(?:'s| is)\s+(?:ok|okay|alright|fine|good|legal|acceptable|allowed)\b"
    r"|\bthat work\b|\bgood to (?:go|use)\b|\bwe good\b|\bany (?:problem|issue)\b|\bis that a problem\b",
    re.I,
)
_OBLIGATION_Q = re.compile(
    r"\b(?:do|does|did|will)\s+"
    r"(?:we|i|you|they|he|she|it|the\s+[\w-]+|our\s+[\w-]+|my\s+[\w-]+|[\w-]+)\s+"
    r"(?:[\w-]+\s+)?(?:need|have to|got to)\b"
    r"|\b(?:need|needs|have|has|got)\s+to\b.*\?\s*$|\bis "
    r"(?:it|a|an|there|that|this)?\s*(?:[\w-]+\s+){0,4}(?:required|mandatory|needed|necessary)\b"
    r"|\b(?:are|is)\s+(?:[\w-]+\s+){0,4}(?:required|mandatory|needed|necessary)\b|\bmust\s+(?:we|i|they|you|the|a|an|our|my)\b"
    r"|\b(?:required|requirement) to\b|\bdo (?:i|we) (?:gotta|hafta)\b|\bshould (?:we|i)\b",
    re.I,
)
_PROHIBITION_Q = re.compile(
    r"\b(?:prohibited|illegal|banned|forbidden|not allowed|against the rules?)\b", re.I
)
_OMISSION_Q = re.compile(
    r"\b(?:skip|skipping|without|instead of|rather than|no need|not bother|don'?t|do not|doesn'?t|leave "
    r"(?:off|out|it off)|"
    r"forgo|ditch|drop the|take (?:off|down|out)|remove|removing|pull "
    r"(?:off|out)|bypass|jump(?:ing)?|disable|override)\b",
    re.I,
)
_EVERY_Q = re.compile(
    r"\b(?:(?:all|any|every)\s+(?:types?|kinds?|sorts?|forms?|cases?|situations?)\s+of|in (?:all|every|any) "
    r"cases?|"
    r"for (?:all|every) (?:\w+[- ]){0,3}(?:work|jobs?|tasks?|operations?|activities))\b",
    re.I,
)

_PROHIBITION = re.compile(
    r"\b(?:shall not|must not|may not|is prohibited|are prohibited|prohibited|not permitted|not allowed|not "
    r"be permitted|"
    r"no (?:employer|employee|person|one|worker)\s+shall|shall never|are not acceptable|is not "
    r"acceptable|shall not be used)\b",
    re.I,
)
_NOT_REQUIRED = re.compile(
    r"\b(?:is not required|are not required|need not|not be required|does not require|do not require)\b", re.I
)
_OBLIGATION = re.compile(r"\b(?:shall|must|is required|are required|required to|have to|has to)\b", re.I)
_PERMISSION = re.compile(
    r"\b(?:may|is permitted|are permitted|is allowed|are allowed|permissible|acceptable|can be used)\b", re.I
)
_RESTRICTION = re.compile(r"\bonly\b", re.I)
_EXCEPTION = re.compile(
    r"\b(?:except|exception|unless|does not apply|do not apply|shall not apply|other than|in lieu "
    r"of|instead of|provided that|"
    r"where\b|when\b|if\b|notwithstanding)\b",
    re.I,
)


_AUX = (
    r"(?:is|are|am|was|were|do|does|did|can|could|should|would|will|may|might|must|shall|has|have|had|need|"
    r"needs|isn'?t|aren'?t|don'?t|doesn'?t|can'?t|won'?t|shouldn'?t|wouldn'?t)"
)
_POLAR_START = re.compile(rf"^(?:(?:so|and|but|also|ok|okay|now|then|well)[,:]?\s+)?{_AUX}\b", re.I)
_POLAR_TAG = re.compile(
    r"\b(?:right|true|ok|okay|correct|allowed|legal|acceptable|fine|good|compliant|a violation|or not|"
    r"yes or no|that flies|enough|required|needed|necessary|legit|kosher)\s*[?.!]*\s*$",
    re.I,
)
_POLAR_INSIDE = re.compile(
    rf"\b{_AUX}\s+(?:i|we|you|they|he|she|it|that|this|those|these|the|my|our|his|there)\b[^?]*\?\s*$", re.I
)
_POLAR_OPENING = re.compile(
    r"^(?:ok|okay|alright|fine|good|allowed|legal|acceptable|compliant|enough|those|that|this|they)\b[^?]*\?$",
    re.I,
)
_WH = re.compile(r"^(?:what|which|who|whom|whose|when|where|why|how)\b", re.I)
_ALTERNATIVE = re.compile(
    rf"\bor\s+(?:is|are|do|does|did|can|should|will|would|just|go|we|the)\b(?!\s+not\b)", re.I
)


def is_polar(question: str) -> bool:
    """A polar (yes/no) question in plain English: one of its asking sentences (those ending "?", else the
    last) opens with an auxiliary verb ("is that a violation"), holds one before its subject ("... is the
    stool different?"), or ends with a tag ("OK on site?", "allowed or not?", "true?"); a wh-question and
    an alternative question ("A, or is there something different?") are not."""
    parts = [p.strip() for p in re.split(r"(?<=[?.!])\s+|\n+", question or "") if p.strip()]
    asking = [p for p in parts if p.endswith("?")] or parts[-1:]
    for clause in asking:
        if _WH.match(clause) or _ALTERNATIVE.search(clause):
            continue
        bare = re.sub(
            rf"^[^,]{{0,40}},\s*(?={_AUX}\b)", "", clause, flags=re.I
        )  # "As the GC, is that on us?"
        if _POLAR_START.match(clause) or _POLAR_START.match(bare) or _POLAR_TAG.search(clause):
            return True
        if _POLAR_OPENING.match(
            clause
        ):  # "OK on site?", "fine as long as he steps back?", "those need GFCIs?"
            return True
        if _POLAR_INSIDE.search(clause):
            return True
    return False


def read_question(question: str) -> QuestionStance:
    """The yes/no reading of a question (its last clause that asks decides: "..., can we skip it?")."""
    q = " ".join((question or "").split())
    if not q:
        return QuestionStance(Asked.NONE)
    polar = is_polar(question or "")
    if re.match(r"(?:what|which|how|who|whom|whose|when|where|why)\b", q, re.I) and not re.search(
        r"\b(?:or not|right\?|ok\?|okay\?)\s*$", q, re.I
    ):
        return QuestionStance(Asked.NONE, polar=polar)
    found = [
        (m.start(), kind)
        for kind, rx in (
            (Asked.PROHIBITION, _PROHIBITION_Q),
            (Asked.OBLIGATION, _OBLIGATION_Q),
            (Asked.PERMISSION, _PERMISSION_Q),
        )
        for m in rx.finditer(q)
    ]
    if not found:
        return QuestionStance(Asked.NONE, polar=polar)
    asked = max(found)[1]
    return QuestionStance(
        asked, omission=bool(_OMISSION_Q.search(q)), every=bool(_EVERY_Q.search(q)), polar=polar
    )


def read_rule(sentence: str, words: RulebookWords = GENERIC) -> RuleStance:
    """What a rule sentence states (several at once: "shall ... only ... unless ..."); a power of the
    rulebook's authority (``words``: "The Regulator may ...") is no permission to the reader's firm."""
    s = sentence or ""
    prohibition = bool(_PROHIBITION.search(s))
    not_required = bool(_NOT_REQUIRED.search(s))
    bare = words.authority_power.sub(" ", _PROHIBITION.sub(" ", _NOT_REQUIRED.sub(" ", s)))
    return RuleStance(
        obligation=bool(_OBLIGATION.search(bare)),
        prohibition=prohibition,
        permission=bool(_PERMISSION.search(bare)),
        restriction=bool(_RESTRICTION.search(s)),
        exception=bool(_EXCEPTION.search(s)),
        not_required=not_required,
    )


def decision(question: QuestionStance, rule: RuleStance) -> Decision | None:
    """The answer a rule sentence gives a yes/no question, or None when it does not decide it.

    - Permission asked: a prohibition says no; a restriction ("only") says no to a claim over every
      case; a duty says no to a proposed omission; a plain permission says yes.
    - Duty asked: a duty says yes, "need not" says no; a condition or exception in either ("when",
      "unless", "where") makes it depend: "guardrails need not be provided when ..." is no answer to a
      question that never said the condition holds.
    - Prohibition asked: a prohibition says yes, a permission says no.
    Anything else, or a rule that both permits and forbids, gives no verdict."""
    if not question.is_yes_no:
        return None
    if rule.prohibition and rule.permission and not rule.restriction:
        return None
    if question.asked is Asked.PERMISSION:
        if rule.prohibition:
            return Decision.NO if not question.omission else None
        if rule.restriction and question.every:
            return Decision.NO
        if rule.obligation and question.omission and not rule.permission:
            return Decision.DEPENDS if rule.exception else Decision.NO
        if rule.permission and not rule.restriction and not question.omission:
            return Decision.DEPENDS if rule.exception else Decision.YES
        return None
    if question.asked is Asked.OBLIGATION:
        if rule.not_required:
            return Decision.DEPENDS if rule.exception else Decision.NO
        if rule.obligation and not rule.prohibition and not question.omission:
            return Decision.DEPENDS if rule.exception else Decision.YES
        return None
    if rule.prohibition:
        return Decision.YES
    if rule.permission and not rule.obligation:
        return Decision.NO
    return None


_CONDITION = re.compile(
    r"\b(?:unless|except (?:when|where|as|that)|provided that|if|when|where)\b[^.;:]*", re.I
)


def condition_of(sentence: str, most: int = 140) -> str:
    """The sentence's first condition or exception clause ("unless adequate precautions have been taken ..."),
    cut at a comma past ``most`` characters; "" when it names none."""
    m = _CONDITION.search(sentence or "")
    if m is None:
        return ""
    clause = m.group(0).strip().rstrip(",")
    # "Where ..." opening the sentence reads "where ..." after the verb
    clause = clause[0].lower() + clause[1:]
    if re.match(r"(?:if|when|where)\b", clause) and "," in clause:
        clause = clause[: clause.index(",")]  # "where X, it must Y": the condition is X
    if len(clause) > most:
        cut = clause.rfind(",", 0, most)
        clause = clause[:cut] if cut > 0 else clause[:most].rsplit(" ", 1)[0] + " ..."
    return clause


_POSITIVE_CONDITION = re.compile(r"\b(?:if|when|where)\b([^.;:,]*)", re.I)


def condition_met(sentence: str, question: str, tokenize, words: RulebookWords = GENERIC) -> bool:
    """True when the sentence's one qualifier is a condition ("if", "when", "where") and the question states
    all of it ("Where a firm holds client money, it must ..." asked as "we hold client money: must we ...?"):
    the rule then answers unconditionally. An exception ("unless", "except"), a second qualifier, or a
    condition the question leaves out keeps the answer depending. Who the rule addresses (``words.actors``:
    "an Authorised Person") is the asker, so it need not be in the question."""
    if len(_EXCEPTION.findall(sentence or "")) != 1:
        return False
    found = _POSITIVE_CONDITION.search(sentence)
    if found is None:
        return False
    terms = set(tokenize(words.actor_words.sub(" ", found.group(1))))
    return bool(terms) and terms <= set(tokenize(question))


def because(question: QuestionStance, rule: RuleStance, value: Decision, sentence: str = "") -> str:
    """What the deciding sentence does, in the words a reply to the question uses ("requires it",
    "prohibits it unless ..."): the clause after the provision id in a verdict line, with the sentence's
    condition when it names one (a "no" that holds unless something is done says so)."""
    if question.asked is Asked.PERMISSION:
        if rule.prohibition:
            verb = "prohibits it"
        elif rule.restriction and question.every:
            verb = "allows it only in the case it states"
        elif rule.obligation and question.omission:
            verb = "requires it"
        else:
            verb = "allows it"
    elif question.asked is Asked.OBLIGATION:
        verb = "does not require it" if value is Decision.NO else "requires it"
    else:
        verb = "prohibits it" if value is Decision.YES else "allows it"
    condition = condition_of(sentence) if rule.exception else ""
    return f"{verb} {condition}" if condition else verb
