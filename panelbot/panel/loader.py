"""Finding, listing and loading panels from persona_data (the model is in ``panelbot.panel.model``).

A panel is a directory holding ``panel.yaml`` (title, host, panelists), ``quotes.yaml`` (the quote bank) and,
optionally, ``questions.yaml`` (the host's questions), ``turns.yaml`` (the segmented transcript) and the raw
captions file named by ``source``. Loading validates everything first and builds the Panel only when all of it
is sound: an error names the file, the line and the entry, and nothing is half-loaded.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from panelbot import paths
from panelbot.errors import DataError, PanelNotFound
from panelbot.panel.model import (
    HostQuestion,
    Panel,
    PanelInfo,
    Persona,
    Quote,
    Turn,
    link_at,
)
from panelbot.panel.yaml_lines import NOT_JSON, line_of, load_json_shaped, load_yaml, load_yaml_list
from panelbot.text import LazyPattern, count_of

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

FORMAT_VERSION = 1
_ID_RE = LazyPattern(r"^[a-z0-9][a-z0-9_.-]*$")
_PANEL_NAME_RE = LazyPattern(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

# ----------------------------------------------------------------------------------------------- finding


def _is_dir(p: Path) -> bool:
    """Path.is_dir that says False for a path it may not look at (unreadable, too long, under /proc)."""
    try:
        return p.is_dir()
    except (OSError, ValueError):
        return False


def _is_file(p: Path) -> bool:
    try:
        return p.is_file()
    except (OSError, ValueError):
        return False


def _subdirs(base: Path) -> list[Path]:
    """The entries of a search directory; none when it cannot be read (it is skipped, not fatal)."""
    try:
        return sorted(base.iterdir()) if _is_dir(base) else []
    except OSError:
        return []


def find_panel_dir(name_or_path: str) -> Path:
    """Resolve a panel name (searched in paths.panel_search_dirs()) or a directory path."""
    if not name_or_path or not name_or_path.strip():
        raise PanelNotFound("empty panel name")
    if any(len(part.encode("utf-8", "surrogateescape")) > 255 for part in name_or_path.split("/")):
        raise PanelNotFound("panel name is longer than 255 bytes (no such file name is possible)")
    candidate = Path(name_or_path).expanduser()
    if ("/" in name_or_path or name_or_path.startswith(".")) and _is_dir(candidate):
        return candidate
    if _PANEL_NAME_RE.match(name_or_path):
        for base in paths.panel_search_dirs():
            d = base / name_or_path
            if _is_file(d / "panel.yaml"):
                return d
    if _is_dir(candidate) and _is_file(candidate / "panel.yaml"):
        return candidate
    names = ", ".join(panel_names()) or "none"
    raise PanelNotFound(f"unknown panel {name_or_path!r} (installed: {names})")


def panel_dirs() -> list[Path]:
    """Directories of installed panels (with a panel.yaml), first of each name, without loading them."""
    seen: dict[str, Path] = {}
    for base in paths.panel_search_dirs():
        for d in _subdirs(base):
            if _is_file(d / "panel.yaml"):
                seen.setdefault(d.name, d)
    return list(seen.values())


def panel_names() -> list[str]:
    """Names of installed panels, first of each name, without loading them."""
    return [d.name for d in panel_dirs()]


def list_panels() -> list[PanelInfo]:
    """Installed panels (first of each name wins, in search order), read from their metadata: panel.yaml is
    validated, the quote bank is only counted (no panel is loaded whole). Broken ones are listed with status
    'error' and the problem as the title."""
    seen: dict[str, PanelInfo] = {}
    for base in paths.panel_search_dirs():
        for d in _subdirs(base):
            if d.name in seen or not _is_file(d / "panel.yaml"):
                continue
            try:
                seen[d.name] = panel_info(d)
            except DataError as exc:
                seen[d.name] = PanelInfo(d.name, str(exc), d, "error", (), 0)
    return list(seen.values())


_ENTRY_RE = LazyPattern(rb"^-(?:[ \t]|$)", re.MULTILINE)


def panel_info(directory: Path) -> PanelInfo:
    """A panel's title, status, panelists and number of quotes, without loading the quote bank: entries
    of a block-style list are counted line by line (a bank written another way is parsed)."""
    title, status, _, panelists, _, _, _, _ = _load_meta(directory)
    bfile = directory / "quotes.yaml"
    if not bfile.is_file():
        raise DataError("missing quotes.yaml (the quote bank)", str(directory))
    try:
        raw = bfile.read_bytes()
    except OSError as exc:
        raise DataError(exc.strerror or str(exc), str(bfile)) from None
    count = len(_ENTRY_RE.findall(raw))
    if not count and raw.strip():
        bank = load_json_shaped(bfile)
        if bank is NOT_JSON:
            bank = load_yaml(bfile, with_lines=False)
        count = len(bank) if isinstance(bank, list) else 0
    if not count:
        raise DataError("the quote bank is empty", str(bfile), 1)
    return PanelInfo(directory.name, title, directory, status, tuple(panelists), count)


# ----------------------------------------------------------------------------------------------- loading


class _Checker:
    """Collects the first problem with file/line context."""

    def __init__(self, path: Path, *, shared: dict[str, str] | None = None) -> None:
        self.path = path
        self.shared = shared  # text -> the one object kept for it (strings(), share())

    def share(self, text: str) -> str:
        return text if self.shared is None else self.shared.setdefault(text, text)

    def fail(self, msg: str, node: Any = None, line: int | None = None) -> None:
        raise DataError(msg, str(self.path), line if line is not None else line_of(node))

    def mapping(self, node: Any, what: str, line: int | None = None) -> dict:
        if not isinstance(node, dict):
            self.fail(f"{what} must be a mapping, got {type(node).__name__}", line=line)
        return node

    def seq(self, node: Any, what: str, line: int | None = None) -> list:
        if node is None:
            return []
        if not isinstance(node, list):
            self.fail(f"{what} must be a list, got {type(node).__name__}", line=line)
        return node

    def text(self, node: dict, key: str, what: str, *, required: bool = True) -> str:
        val = node.get(key)
        if type(val) is str and (
            stripped := val.strip()
        ):  # the usual case, checked first (large banks)
            return stripped
        if val is None or (isinstance(val, str) and not val.strip()):
            if required:
                self.fail(f"{what}: missing field {key!r}", node)
            return ""
        if isinstance(val, (int, float)) and not isinstance(val, bool):
            val = str(val)
        if not isinstance(val, str):
            self.fail(f"{what}: field {key!r} must be text, got {type(val).__name__}", node)
        return val.strip()

    def strings(self, node: dict, key: str, what: str, *, share: bool = True) -> tuple[str, ...]:
        val = node.get(key)
        if val is None:
            return ()
        if isinstance(val, str):
            val = [val]
        if not isinstance(val, list) or not all(isinstance(v, (str, int, float)) for v in val):
            self.fail(f"{what}: field {key!r} must be a list of text", node)
        out = tuple(filter(None, [str(v).strip() for v in val]))
        if (
            share and self.shared is not None
        ):  # one object per distinct keyword (a large bank repeats them a lot)
            out = tuple(map(self.share, out))
        return out

    def entry(self, node: Any, kind: str, index: int, seen: set[str]) -> tuple[dict, str, str]:
        """The i-th list entry as a mapping with a new, well-formed id: (node, id, "kind 'id'")."""
        node = self.mapping(node, f"{kind} #{index + 1}")
        eid = self.ident(node, "id", f"{kind} #{index + 1}")
        if eid in seen:
            self.fail(f"duplicate {kind} id {eid!r}", node)
        seen.add(eid)
        return node, eid, f"{kind} {eid!r}"

    def integer(self, node: dict, key: str, what: str) -> int | None:
        val = node.get(key)
        if val is None:
            return None
        if isinstance(val, bool) or not isinstance(val, int) or val < 0:
            self.fail(f"{what}: field {key!r} must be a whole number >= 0", node)
        return val

    def seconds(self, node: dict, key: str, what: str) -> float | None:
        val = node.get(key)
        if val is None:
            return None
        bad = isinstance(val, bool) or not isinstance(val, (int, float)) or not val >= 0  # or NaN
        if not bad:
            try:
                out = float(val)
            except OverflowError:  # an integer past any float
                bad = True
            else:
                bad = out == float("inf")
        if bad:
            self.fail(f"{what}: field {key!r} must be a number of seconds >= 0", node)
        return out

    def ident(self, node: dict, key: str, what: str) -> str:
        val = self.text(node, key, what)
        if not _ID_RE.compiled.match(val):
            self.fail(
                f"{what}: {key} {val!r} must be lowercase letters, digits, '-', '_' or '.'", node
            )
        return val


def _persona(c: _Checker, node: Any, what: str) -> Persona:
    node = c.mapping(node, what)
    pid = c.ident(node, "id", what)
    what = f"{what} {pid!r}"
    return Persona(
        id=pid,
        name=c.text(node, "name", what),
        role=c.text(node, "role", what, required=False),
        organisation=c.text(node, "organisation", what, required=False)
        or c.text(node, "organization", what, required=False),
        colour=c.text(node, "colour", what, required=False)
        or c.text(node, "color", what, required=False),
        covers=c.strings(node, "covers", what),
        keywords=c.strings(node, "keywords", what),
        voice=c.text(node, "voice", what, required=False),
        bio=c.text(node, "bio", what, required=False),
    )


def _load_meta(
    directory: Path,
) -> tuple[
    str,
    str,
    Persona | None,
    dict[str, Persona],
    dict[str, tuple[str, ...]],
    tuple[str, ...],
    Path | None,
    str | None,
]:
    """panel.yaml, validated: title, status, host, panelists, vocabulary, topics, source, source_url."""
    panel_file = directory / "panel.yaml"
    if not panel_file.is_file():
        raise DataError("not a panel directory (no panel.yaml)", str(directory))
    c = _Checker(panel_file)
    meta = load_yaml(panel_file)
    meta = c.mapping(meta, "panel.yaml", line=1)
    fmt = meta.get("format", FORMAT_VERSION)
    if fmt != FORMAT_VERSION:
        c.fail(f"unsupported format {fmt!r} (this panelbot reads format {FORMAT_VERSION})", meta)
    title = c.text(meta, "title", "panel")
    status = c.text(meta, "status", "panel", required=False) or "curated"
    if status not in ("draft", "curated"):
        c.fail(f"status must be 'draft' or 'curated', got {status!r}", meta)
    host = None
    if meta.get("host") is not None:
        host = _persona(c, meta["host"], "host")
    panelists: dict[str, Persona] = {}
    raw_panelists = c.seq(meta.get("panelists"), "panelists", line=line_of(meta))
    if not raw_panelists:
        c.fail("panel has no panelists", meta)
    for node in raw_panelists:
        p = _persona(c, node, "panelist")
        if p.id in panelists or (host and host.id == p.id):
            c.fail(f"duplicate speaker id {p.id!r}", node)
        panelists[p.id] = p
    vocabulary: dict[str, tuple[str, ...]] = {}
    vocab_node = meta.get("vocabulary")
    if vocab_node is not None:
        vocab_node = c.mapping(vocab_node, "vocabulary", line=line_of(meta))
        for key, val in vocab_node.items():
            if key == "__line__":
                continue
            if isinstance(val, str):
                val = [val]
            if not isinstance(val, list) or not all(isinstance(v, str) for v in val):
                c.fail(f"vocabulary {key!r} must map to a list of text", vocab_node)
            vocabulary[str(key)] = tuple(val)
    topics = c.strings(meta, "topics", "panel")
    source = None
    src_name = c.text(meta, "source", "panel", required=False)
    if src_name:
        source = directory / src_name
        if not source.is_file():
            c.fail(f"source file {src_name!r} does not exist", meta)
    source_url = c.text(meta, "source_url", "panel", required=False) or None
    if source_url and not re.match(r"^https?://[^\s/]+\S*$", source_url):
        c.fail(f"source_url must be an http(s) URL, got {source_url!r}", meta)
    return title, status, host, panelists, vocabulary, topics, source, source_url


def load_panel(name_or_path: str | Path) -> Panel:
    """Load and validate a panel by name or directory. Raises DataError / PanelNotFound."""
    directory = (
        Path(name_or_path) if isinstance(name_or_path, Path) else find_panel_dir(name_or_path)
    )
    title, status, host, panelists, vocabulary, topics, source, source_url = _load_meta(directory)

    speakers = set(panelists) | ({host.id} if host else set())

    turns: list[Turn] = []
    tfile = directory / "turns.yaml"
    if tfile.is_file():
        turns = _read_list(tfile, lambda data: _turns(tfile, data, speakers))
    questions: list[HostQuestion] = []
    qfile = directory / "questions.yaml"
    if qfile.is_file():
        questions = _read_list(qfile, lambda data: _questions(qfile, data, panelists, turns))
    bfile = directory / "quotes.yaml"
    if not bfile.is_file():
        raise DataError("missing quotes.yaml (the quote bank)", str(directory))
    shared: dict[
        str, str
    ] = {}  # text -> the one object kept for it (a large bank repeats keywords a lot)
    quotes = _read_list(
        bfile, lambda data: _quotes(bfile, data, panelists, questions, turns, source_url, shared)
    )
    return Panel(
        name=directory.name,
        title=title,
        path=directory,
        status=status,
        host=host,
        panelists=panelists,
        quotes=quotes,
        questions=questions,
        turns=turns,
        vocabulary=vocabulary,
        topics=topics,
        source=source,
        source_url=source_url,
    )


def _read_list(path: Path, validate: Callable[[Any], T]) -> T:
    """``validate(data)`` of a panel file. A file written as JSON is read by the JSON fast path (a large
    quote bank loads ~40x faster); when ``validate`` finds a problem there, the file is read again as
    YAML, which remembers lines, so that the error names its line just as it always did."""
    import gc

    gc_was_enabled = gc.isenabled()
    gc.disable()  # parsing forms no cycles: collections would only rescan the growing bank (~25% of the time)
    try:
        data = load_json_shaped(path)
        if data is NOT_JSON:
            return validate(load_yaml_list(path))
        try:
            return validate(data)
        except DataError:
            pass
        del data
        return validate(load_yaml_list(path))  # the same problem, now with its line
    finally:
        if gc_was_enabled:
            if not gc.get_freeze_count():
                # What was read is kept as long as the panel: it goes straight to the oldest generation
                # (freezing and thawing moves every tracked object there without scanning any). Left young,
                # the next collections would scan it twice on its way there (~0.05 s each for 100,000
                # quotes), and its arrival there would soon start a full collection.
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _turns(tfile: Path, data: Any, speakers: set[str]) -> list[Turn]:
    tc = _Checker(tfile)
    turns: list[Turn] = []
    for i, node in enumerate(tc.seq(data, "turns.yaml", line=1)):
        node = tc.mapping(node, f"turn {i}")
        sp = tc.text(node, "speaker", f"turn {i}")
        if sp not in speakers and sp != "unknown":
            tc.fail(
                f"turn {i}: unknown speaker {sp!r} (panel speakers: {', '.join(sorted(speakers))})",
                node,
            )
        turns.append(
            Turn(
                i,
                sp,
                tc.text(node, "text", f"turn {i}"),
                tc.seconds(node, "start", f"turn {i}"),
                tc.seconds(node, "end", f"turn {i}"),
            )
        )
    return turns


def _questions(
    qfile: Path, data: Any, panelists: dict[str, Persona], turns: list[Turn]
) -> list[HostQuestion]:
    qc = _Checker(qfile)
    questions: list[HostQuestion] = []
    seen_q: set[str] = set()
    for i, node in enumerate(qc.seq(data, "questions.yaml", line=1)):
        node, qid, what = qc.entry(node, "question", i, seen_q)
        turn = qc.integer(node, "turn", what)
        if turn is not None and turns and turn >= len(turns):
            qc.fail(
                f"{what}: turn {turn} is past the end of turns.yaml ({count_of(len(turns), 'turn')})",
                node,
            )
        for key in ("asked_to", "answered_by"):
            for sp in qc.strings(node, key, what):
                if sp not in panelists:
                    qc.fail(f"{what}: unknown speaker {sp!r} in {key}", node)
        questions.append(
            HostQuestion(
                qid,
                qc.text(node, "text", what),
                turn,
                qc.strings(node, "asked_to", what),
                qc.strings(node, "answered_by", what),
            )
        )
    return questions


def _quotes(
    bfile: Path,
    data: Any,
    panelists: dict[str, Persona],
    questions: list[HostQuestion],
    turns: list[Turn],
    source_url: str | None,
    shared: dict[str, str],
) -> list[Quote]:
    """The quote bank, checked entry by entry (an error names its line)."""
    bc = _Checker(bfile, shared=shared)
    raw_quotes = bc.seq(data, "quotes.yaml", line=1)
    if not raw_quotes:
        bc.fail("the quote bank is empty", line=1)
    quotes: list[Quote] = []
    seen_ids: set[str] = set()
    qids = {q.id for q in questions}
    for i, node in enumerate(raw_quotes):
        quotes.append(_quote(bc, node, i, seen_ids, panelists, questions, qids, turns, source_url))
        raw_quotes[i] = (
            None  # the quote is built: its parsed mapping can go (peak memory of a large bank)
        )
    return quotes


def _quote(
    bc: _Checker,
    node: Any,
    i: int,
    seen_ids: set[str],
    panelists: dict[str, Persona],
    questions: list[HostQuestion],
    qids: set[str],
    turns: list[Turn],
    source_url: str | None,
) -> Quote:
    """The i-th entry of a quote bank, checked field by field: the quote, or the error naming its line."""
    node, qid, what = bc.entry(node, "quote", i, seen_ids)
    speaker = bc.share(bc.text(node, "speaker", what))
    if speaker not in panelists:
        bc.fail(f"{what}: unknown speaker {speaker!r} (panelists: {', '.join(panelists)})", node)
    question = bc.share(bc.text(node, "question", what, required=False)) or None
    if question and questions and question not in qids:
        bc.fail(f"{what}: unknown question {question!r}", node)
    turn = bc.integer(node, "turn", what)
    if turn is not None and turns and turn >= len(turns):
        bc.fail(f"{what}: turn {turn} is past the end of turns.yaml", node)
    sentences = node.get("sentences")
    span = None
    if sentences is not None:
        if (
            not isinstance(sentences, list)
            or len(sentences) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in sentences)
            or not 0 <= sentences[0] < sentences[1]
        ):
            bc.fail(f"{what}: sentences must be [first, end) with 0 <= first < end", node)
        span = (sentences[0], sentences[1])
    start = bc.seconds(node, "start", what)
    return Quote(
        id=qid,
        speaker=speaker,
        text=bc.text(node, "text", what),
        question=question,
        turn=turn,
        sentences=span,
        topics=bc.strings(node, "topics", what),
        keywords=bc.strings(node, "keywords", what),
        asks=bc.strings(node, "asks", what, share=False),  # mostly unique: not worth a table entry
        start=start,
        end=bc.seconds(node, "end", what),
        url=link_at(source_url, start) if source_url and start is not None else None,
        note=bc.text(node, "note", what, required=False),
    )
