"""``panelbot panels`` (the installed panels) and ``panelbot ingest`` (raw captions -> a draft panel)."""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Callable
from typing import TextIO

from panelbot.cli.common import EXIT_OK, print_json
from panelbot.errors import UsageError


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    panels = sub.add_parser("panels", help="list installed panels")
    panels.add_argument("--json", action="store_true")
    panels.add_argument(
        "--names", action="store_true", help="only the names, one a line (for shell completion)"
    )
    panels.add_argument(
        "--panelists",
        action="store_true",
        help="what 'ask --to' takes: auto, both and every installed panel's panelist ids, one a line "
        "(for shell completion)",
    )
    panels.set_defaults(handler=cmd_panels)

    ingest = sub.add_parser(
        "ingest",
        help="turn a talk's captions into a draft panel",
        description="Turn a talk's captions or transcript (WebVTT, SRT, YouTube json3, plain "
        "rolling text, or the JSON of whisperX, Podcasting 2.0 or youtube-transcript-api; the format "
        "is read from the content) into a draft panel that a person reviews, then report how "
        "healthy it is. Speaker labels in the file (SPEAKER_00:, Name:, <v Name>, JSON speaker "
        "fields) decide who said what; --speaker puts a name to an anonymous label (on a terminal, "
        "ingest asks).",
    )
    ingest.add_argument("captions", metavar="CAPTIONS", help="the captions file")
    ingest.add_argument(
        "--out", metavar="DIR", help="panel directory to write, e.g. persona_data/NAME"
    )
    ingest.add_argument(
        "--turns-json", action="store_true", help="print the segmented turns as JSON"
    )
    ingest.add_argument(
        "--force", action="store_true", help="overwrite the panel in --out (draft or curated)"
    )
    ingest.add_argument(
        "--speaker",
        action="append",
        default=[],
        metavar="LABEL=NAME",
        help="who a speaker label of the captions is: --speaker SPEAKER_00=Dan (NAME 'host' for the "
        "host); repeat for each label",
    )
    ingest.add_argument(
        "--host", metavar="LABEL", help="the speaker label of the host (as --speaker LABEL=host)"
    )
    ingest.add_argument(
        "--url", metavar="URL", help="the talk's video: every quote links to its moment"
    )
    ingest.add_argument(
        "--llm",
        action="store_true",
        help="ask the configured model endpoint who said each doubtful turn (answers checked against "
        "the turn's text; offline attribution otherwise, and when it fails)",
    )
    ingest.set_defaults(handler=cmd_ingest)


def cmd_panels(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.panel import list_panels
    from panelbot.text import count_of, strip_control, terminal_columns

    infos = list_panels()
    if args.names or args.panelists:
        words = [i.name for i in infos]
        if args.panelists:
            words = ["auto", "both", *(p for i in infos for p in i.panelists)]
        for word in dict.fromkeys(strip_control(w, keep_newlines=False) for w in words):
            if word and not any(c.isspace() for c in word):  # a word a shell can complete
                out.write(word + "\n")
        return EXIT_OK
    if args.json:
        print_json(
            [
                {
                    "name": i.name,
                    "title": i.title,
                    "status": i.status,
                    "path": str(i.path),
                    "panelists": list(i.panelists),
                    "quotes": i.quotes,
                }
                for i in infos
            ],
            out,
        )
        return EXIT_OK
    if not infos:
        out.write("No panels installed.\n")
    rows = [
        (
            strip_control(i.name, keep_newlines=False),
            strip_control(i.status, keep_newlines=False),
            count_of(i.quotes, "quote"),
            strip_control(", ".join(i.panelists), keep_newlines=False),
            strip_control(i.title, keep_newlines=False),
        )
        for i in infos
    ]
    for line in table(rows, caps=(24, 8, 12, 28), right=(2,), width=terminal_columns(100)):
        out.write(line + "\n")
    return EXIT_OK


def table(
    rows: list[tuple[str, ...]],
    *,
    caps: tuple[int, ...],
    right: tuple[int, ...] = (),
    width: int = 100,
) -> list[str]:
    """Rows as aligned columns two spaces apart: each column as wide as its widest cell up to its cap
    (``caps`` has one per column but the last), a longer cell cut at a word with "…"; the last column
    takes what is left of ``width`` (at least 20 characters). Columns in ``right`` are right-aligned."""
    from panelbot.text import shorten

    if not rows:
        return []
    widths = [min(cap, max(len(r[c]) for r in rows)) for c, cap in enumerate(caps)]
    last = max(20, width - sum(widths) - 2 * len(widths))
    lines = []
    for r in rows:
        cells = [
            shorten(cell, w).rjust(w) if c in right else shorten(cell, w).ljust(w)
            for c, (cell, w) in enumerate(zip(r[:-1], widths, strict=True))
        ]
        lines.append("  ".join([*cells, shorten(r[-1], last)]).rstrip())
    return lines


def cmd_ingest(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import re
    from pathlib import Path

    from panelbot.ingest.draft import build_draft, overwrite_refusal, segment

    if not args.out and not args.turns_json:
        raise UsageError("ingest needs --out DIR (where to write the panel) and/or --turns-json")
    if args.url and not re.match(r"^https?://[^\s/]+\S*$", args.url):
        raise UsageError(f"--url expects an http(s) URL, got {args.url!r}")
    if getattr(args, "llm", False) and not args.out:
        raise UsageError("--llm attributes the turns of the panel it writes: give --out DIR")
    speakers = _speaker_mapping(args.speaker, args.host)
    if args.out and not args.force:  # before the work, not after it
        refused = overwrite_refusal(Path(args.out))
        if refused:
            raise UsageError(refused)
    captions, caps, title_guessed = _read_checked(args, err)
    speakers = _check_speakers(caps, speakers, args.captions, out)
    if args.turns_json and not args.out:
        _, turns, _ = segment(caps, speakers=speakers)
        out.write(json.dumps([t.to_dict() for t in turns], ensure_ascii=True, indent=1) + "\n")
        return EXIT_OK
    outdir = Path(args.out)
    if outdir.exists() and not outdir.is_dir():
        raise UsageError(
            f"--out {outdir} is a file, not a directory (--force replaces only a panel directory)"
        )
    options = {"url": args.url, "speakers": speakers, "title_guessed": title_guessed}
    draft = build_draft(caps, outdir.name, **options)
    if getattr(args, "llm", False):
        draft = _with_model(draft, caps, outdir.name, options, args, out, err)
    written = _write(draft, captions, outdir, args.force)
    if args.turns_json:
        out.write(
            json.dumps([t.to_dict() for t in draft.turns], ensure_ascii=True, indent=1) + "\n"
        )
        return EXIT_OK
    _report_written(draft, outdir, len(written), out)
    return EXIT_OK


def _read_checked(args: argparse.Namespace, err: TextIO):  # noqa: ANN202 - (str, Captions, bool)
    """The captions file read and parsed, refused with one line when it is not captions; its title from
    the file's name when it carries none (and whether it was so guessed)."""
    from panelbot.errors import DataError
    from panelbot.ingest.draft import parse, read_captions_file, title_from_filename
    from panelbot.ingest.sniff import not_captions

    captions = read_captions_file(args.captions)
    caps = parse(captions)
    if caps.error:
        raise DataError(f"{args.captions}: {caps.error}; nothing written")
    for w in caps.warnings:
        err.write(f"panelbot: warning: {args.captions}: {w}\n")
    if not [w for w in caps.words if w.text != ">>"]:
        raise DataError(f"{args.captions}: no caption text found ({caps.format})")
    refused = not_captions(caps, captions)
    if refused:
        raise DataError(
            f"{args.captions}: {refused}; expected WebVTT, SRT, json3 or a talk's plain captions"
        )
    if not any(w.text == ">>" for w in caps.words):
        err.write(
            f"panelbot: warning: {args.captions}: the captions mark no change of speaker: turns are cut "
            "where the talk reads as a conversation (a question, then a long answer), so check them "
            "(`panelbot check` lists the turns whose speaker rests only on their order or field)\n"
        )
    title_guessed = not caps.title
    if title_guessed:
        caps.title = title_from_filename(args.captions)
    if args.url and not caps.timed:
        err.write(
            f"panelbot: warning: {args.captions}: plain text captions carry no times, so quotes cannot link "
            "to their moment (WebVTT, SRT or json3 captions can)\n"
        )
    return captions, caps, title_guessed


def _with_model(draft, caps, name: str, options: dict, args, out: TextIO, err: TextIO):  # noqa: ANN001, ANN202
    """``ingest --llm``: the configured endpoint attributes the doubtful turns; the draft derived again
    with the answers it could check (the offline draft when it gives none or fails)."""
    from panelbot.cli.common import load_config_warned
    from panelbot.ingest.draft import build_draft
    from panelbot.ingest.llm_attribution import ask_model, doubtful_numbers
    from panelbot.text import count_of, strip_control

    cfg = load_config_warned(args).with_endpoint(generate=True)
    if not cfg.backend.base_url:
        raise UsageError(
            "--llm needs a model endpoint: set backend.base_url in the config or $PANELBOT_BASE_URL "
            "(without --llm, ingest attributes offline)"
        )
    if not doubtful_numbers(draft):
        out.write("No doubtful turn to ask the model about.\n")
        return draft
    result = ask_model(draft, cfg.backend)
    for note in result.rejected:
        err.write(f"panelbot: note: --llm: {strip_control(note, keep_newlines=False)}\n")
    out.write(
        f"The model changed the speaker of {len(result.overrides)} of "
        f"{count_of(result.asked, 'doubtful turn')}"
        + (
            f" ({count_of(len(result.rejected), 'answer')} not taken: offline kept)"
            if result.rejected
            else ""
        )
        + ".\n"
    )
    if not result.overrides:
        return draft
    return build_draft(caps, name, **options, model_overrides=result.overrides)


def _write(draft, captions: str, outdir, force: bool) -> list:  # noqa: ANN001
    from panelbot.errors import DataError
    from panelbot.ingest.draft import write_draft

    try:
        return write_draft(draft, captions, outdir, force=force)
    except OSError as exc:  # a read-only place, a path under a file, /proc, a full disk...
        raise DataError(
            f"cannot write the panel there: {exc.strerror or exc}", str(outdir)
        ) from None


def _report_written(draft, outdir, written: int, out: TextIO) -> None:  # noqa: ANN001
    """What was written, its health report, and commands that work from any directory."""
    from panelbot.ingest.health import format_health, panel_health
    from panelbot.panel import load_panel
    from panelbot.text import count_of

    unknown = sum(1 for t in draft.turns if t.speaker == "unknown")
    names = ", ".join(
        p["name"] for p in draft.panel["panelists"]
    )  # as the panel shows them: full names
    out.write(
        f"Wrote draft panel {outdir} ({count_of(len(draft.turns), 'turn')}, "
        f"{count_of(len(draft.questions), 'host question')}, "
        f"{count_of(len(draft.quotes), 'quote')}; panelists: {names}; captions: {draft.format}).\n"
    )
    if unknown:
        out.write(
            f"{count_of(unknown, 'turn')} could not be attributed: marked 'unknown' in turns.yaml for review.\n"
        )
    out.write(format_health(panel_health(load_panel(outdir))) + "\n")
    # the panel's name where it is found by name from anywhere, else its full path
    where = str(outdir.resolve())
    ref = outdir.name if _found_by_name_anywhere(outdir) else where
    out.write(
        f'Try: panelbot ask --panel {shlex.quote(ref)} "..."   ({count_of(written, "file")} written; '
        f"panelbot check {shlex.quote(where)} to see this again)\n"
    )


def _found_by_name_anywhere(outdir) -> bool:  # noqa: ANN001 - a Path
    """Whether ``--panel NAME`` finds this directory from any working directory: it is the first of its
    name in a search place that does not depend on the working directory ($PANELBOT_PANELS, the user's
    panels), not ./persona_data nor a directory here."""
    from pathlib import Path

    from panelbot import paths
    from panelbot.errors import PanelNotFound
    from panelbot.panel import find_panel_dir

    try:
        if find_panel_dir(outdir.name).resolve() != outdir.resolve():
            return False
    except PanelNotFound:
        return False
    local = (Path.cwd() / "persona_data").resolve()
    return any(
        b.resolve() != local and (b / outdir.name).resolve() == outdir.resolve()
        for b in paths.panel_search_dirs()
    )


def _speaker_mapping(pairs: list[str], host: str | None) -> dict[str, str]:
    """--speaker LABEL=NAME (and --host LABEL) -> {label: name or "host"}; a malformed one is a usage error."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        label, sep, name = pair.partition("=")
        label, name = " ".join(label.split()), " ".join(name.split())
        if not sep or not label or not name:
            raise UsageError(f"--speaker expects LABEL=NAME (e.g. SPEAKER_00=Dan), got {pair!r}")
        mapping[label] = name
    if host is not None:
        if not host.strip():
            raise UsageError("--host expects the host's speaker label, e.g. --host SPEAKER_02")
        mapping[" ".join(host.split())] = "host"
    return mapping


def _check_speakers(caps, speakers: dict[str, str], source: str, out: TextIO) -> dict[str, str]:  # noqa: ANN001
    """The mapping checked against the labels the captions carry (a label they lack is a usage error), and
    completed on a terminal by asking who each anonymous label is."""
    import sys

    from panelbot.ingest.draft import speaker_label_preview
    from panelbot.ingest.formats import is_anonymous_label

    preview = speaker_label_preview(caps)
    present = {lab.label.lower(): lab.label for lab in preview}
    for label in speakers:
        if label.lower() not in present:
            have = ", ".join(present.values()) or "none: the captions mark no speakers"
            raise UsageError(
                f"--speaker {label}: no such speaker label in {source} (labels: {have})"
            )
    given = {label.lower() for label in speakers}
    ask = [
        lab for lab in preview if is_anonymous_label(lab.label) and lab.label.lower() not in given
    ]
    if not ask or not sys.stdin.isatty():
        return speakers
    return {**speakers, **ask_speakers(ask, out, input)}


def ask_speakers(labels: list, out: TextIO, read: Callable[[str], str]) -> dict[str, str]:  # noqa: ANN001
    """Ask who each anonymous speaker label is, showing how its first turn starts; Enter keeps the proposal
    (the name it introduces itself with, or the host when its turns mostly ask). End of input stops asking."""
    from panelbot.ingest.names import HOST
    from panelbot.text import count_of, strip_control

    answers: dict[str, str] = {}
    out.write("The captions label their speakers without names. Who is who?\n")
    for lab in labels:
        shown = strip_control(lab.first_words, keep_newlines=False)
        proposal = "" if lab.how == "no name found" else lab.name
        out.write(f'  {lab.label} ({count_of(lab.turns, "turn")}) starts: "{shown} …"\n')
        hint = f"Enter for {proposal}, " if proposal else "Enter to keep the label, "
        try:
            said = read(f"  Who is {lab.label}? ({hint}a name, or 'host'): ").strip()
        except EOFError:
            out.write("\n")
            break
        said = strip_control(" ".join(said.split()), keep_newlines=False)
        if said:
            answers[lab.label] = said
        elif proposal:
            answers[lab.label] = "host" if proposal == HOST else proposal
    return answers
