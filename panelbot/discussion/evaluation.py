"""Labelled pairs of quotes (``eval/discuss_pairs.yaml``) and how the pairing scores on them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from panelbot.errors import DataError
from panelbot.panel import Panel

LABELS = ("agree", "differ", "unrelated")


@dataclass(frozen=True)
class LabelledPair:
    a: str
    b: str
    label: str  # one of LABELS
    subject: str = ""

    @property
    def paired(self) -> bool:
        return self.label != "unrelated"


@dataclass(frozen=True)
class PairSet:
    talk: str  # a panel name, or a captions file a draft is made from
    pairs: tuple[LabelledPair, ...]
    declined: tuple[str, ...]  # subjects neither panelist spoke to


def load_pairs(path: Path) -> PairSet:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        pairs = tuple(
            LabelledPair(str(p["a"]), str(p["b"]), str(p["label"]), str(p.get("subject", "")))
            for p in data["pairs"]
        )
    except (OSError, yaml.YAMLError, KeyError, TypeError) as exc:
        raise DataError(f"{path}: not a pair set ({exc})") from None
    bad = [p for p in pairs if p.label not in LABELS]
    if bad:
        raise DataError(f"{path}: unknown label {bad[0].label!r}")
    return PairSet(str(data["talk"]), pairs, tuple(str(s) for s in data.get("declined") or ()))


def check_ids(panel: Panel, pairs: Sequence[LabelledPair]) -> None:
    """Every id is a quote of the panel (a pair set written for another cut of the talk is refused)."""
    missing = sorted({i for p in pairs for i in (p.a, p.b) if panel.quote(i) is None})
    if missing:
        raise DataError(f"quote ids not in panel {panel.name}: {', '.join(missing)}")


@dataclass(frozen=True)
class PairScore:
    """Pairing (about the same thing) and verdicts (agree/differ claims) on a labelled set."""

    pairs: int
    predicted_paired: int
    true_paired: int
    correct_paired: int
    claims: int  # pairs given an agree or differ verdict
    correct_claims: int  # ... whose label is that verdict

    @property
    def precision(self) -> float:
        return self.correct_paired / self.predicted_paired if self.predicted_paired else 1.0

    @property
    def recall(self) -> float:
        return self.correct_paired / self.true_paired if self.true_paired else 1.0

    @property
    def claim_precision(self) -> float:
        return self.correct_claims / self.claims if self.claims else 1.0

    def to_dict(self) -> dict[str, float | int]:
        return {
            "pairs": self.pairs,
            "pairing_precision": round(100 * self.precision, 1),
            "pairing_recall": round(100 * self.recall, 1),
            "predicted_paired": self.predicted_paired,
            "true_paired": self.true_paired,
            "claims": self.claims,
            "claim_precision": round(100 * self.claim_precision, 1),
        }


def score(pairs: Sequence[LabelledPair], verdict_of: Callable[[LabelledPair], str]) -> PairScore:
    """``verdict_of`` gives "agree", "differ", "both" (paired, no verdict) or "apart" (not paired)."""
    predicted = true = correct = claims = right = 0
    for p in pairs:
        v = verdict_of(p)
        is_paired = v != "apart"
        predicted += is_paired
        true += p.paired
        correct += is_paired and p.paired
        if v in ("agree", "differ"):
            claims += 1
            right += v == p.label
    return PairScore(len(pairs), predicted, true, correct, claims, right)


# ------------------------------------------------------------------------------- discussion requests


@dataclass(frozen=True)
class LabelledRequest:
    """A message labelled as a request for a discussion or not (``eval/discussion_requests_*.yaml``)."""

    message: str
    discussion: bool
    subject: str = ""  # what a request is about ("" when it names none)
    after: str = ""  # an earlier question the message follows up on


def load_requests(path: Path) -> tuple[LabelledRequest, ...]:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        items = tuple(
            LabelledRequest(
                str(r["message"]),
                bool(r["discussion"]),
                str(r.get("subject") or ""),
                str(r.get("after") or ""),
            )
            for r in data["requests"]
        )
    except (OSError, yaml.YAMLError, KeyError, TypeError) as exc:
        raise DataError(f"{path}: not a set of labelled requests ({exc})") from None
    return items


@dataclass(frozen=True)
class RequestScore:
    """How the resolver reads labelled messages: as a discussion (its kind) or not, and the subject."""

    items: int
    predicted: int  # read as a discussion
    true: int  # labelled one
    correct: int  # both
    subjects_right: int  # ... of those, the subject as labelled
    misses: tuple[str, ...] = ()

    @property
    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.true if self.true else 1.0

    def to_dict(self) -> dict[str, object]:
        return {
            "items": self.items,
            "precision": round(100 * self.precision, 1),
            "recall": round(100 * self.recall, 1),
            "predicted": self.predicted,
            "true": self.true,
            "correct": self.correct,
            "subjects_right": self.subjects_right,
            "misses": list(self.misses),
        }


def _subject_words(text: str) -> list[str]:
    """A subject's words, case and a leading article aside ("the KV cache" is "KV cache")."""
    said = text.lower().split()
    return said[1:] if said[:1] in (["the"], ["a"], ["an"]) else said


def score_requests(router: object, items: Sequence[LabelledRequest]) -> RequestScore:
    """Each message resolved as a user would send it (after its ``after`` question, when it has one):
    read as a discussion when the resolver gives it that kind; a staged request's subject is right when
    it is the labelled one (case and spacing aside)."""
    from panelbot.conversation.resolve import resolve
    from panelbot.conversation.turns import DISCUSSION, ConversationTurn

    predicted = true = correct = subjects = 0
    misses: list[str] = []
    for it in items:
        history = []
        if it.after:
            first = resolve(router, [], it.after)  # type: ignore[arg-type]
            route = first.route
            history = [
                ConversationTurn(
                    it.after, list(route.speakers), [sq.quote.id for sq in route.quotes]
                )
            ]
        res = resolve(router, history, it.message)  # type: ignore[arg-type]
        got = res.kind == DISCUSSION
        predicted += got
        true += it.discussion
        correct += got and it.discussion
        if got != it.discussion:
            misses.append(f"{it.message!r}: {'read' if got else 'not read'} as a discussion")
        elif got and res.discussion is not None and it.subject:
            same = _subject_words(res.discussion.subject) == _subject_words(it.subject)
            subjects += same
            if not same:
                misses.append(
                    f"{it.message!r}: subject {res.discussion.subject!r}, not {it.subject!r}"
                )
        elif got and res.discussion is None:
            misses.append(f"{it.message!r}: declined (the panel never spoke to it, as read)")
        elif got and not it.subject:
            subjects += 1
    return RequestScore(len(items), predicted, true, correct, subjects, tuple(misses))
