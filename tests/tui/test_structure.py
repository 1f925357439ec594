"""How the app is put together: one module per concern, each saying what it holds, none overriding another."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import panelbot.tui


def test_every_tui_module_says_what_it_holds() -> None:
    root = Path(panelbot.tui.__file__).parent
    missing = [
        str(f.relative_to(root))
        for f in sorted(root.rglob("*.py"))
        if not ast.get_docstring(ast.parse(f.read_text(encoding="utf-8")))
    ]
    assert missing == []


def test_the_app_is_a_composition_of_concerns_that_do_not_overlap() -> None:
    """Each mixin of PanelbotApp holds its own methods: a name in two of them would be silently shadowed by
    the one earlier in the MRO, and the app's class body keeps only set-up, composition and the wiring."""
    from textual.app import App

    from panelbot.tui.app import PanelbotApp

    concerns = [c for c in PanelbotApp.__mro__[1:] if c.__module__.startswith("panelbot.tui.")]
    assert len(concerns) >= 8
    owner: dict[str, str] = {}
    clashes = []
    for cls in concerns:
        for name, value in vars(cls).items():
            if name.startswith("__") or not (
                inspect.isfunction(value) or isinstance(value, property)
            ):
                continue
            if name in owner:
                clashes.append(f"{name}: {owner[name]} and {cls.__name__}")
            owner[name] = cls.__name__
    own = {n for n, v in vars(PanelbotApp).items() if inspect.isfunction(v)}
    clashes += [f"{n}: {owner[n]} and PanelbotApp" for n in own & owner.keys()]
    assert clashes == []
    # the widgets' messages are handled in the app module itself, where a reader looks for them
    assert {n for n in own if n.startswith("on_")} >= {
        "on_prompt_submitted",
        "on_to_input",
        "on_sources_list_chosen",
        "on_answer_block_picked",
    }
    # every slash command has its handler, and every key binding its action
    from panelbot.tui.engine import COMMANDS

    assert all(callable(getattr(PanelbotApp, f"_cmd_{c.name}", None)) for c in COMMANDS)
    for binding in PanelbotApp.BINDINGS:
        action = binding.action  # type: ignore[union-attr]
        assert hasattr(PanelbotApp, f"action_{action}") or hasattr(App, f"action_{action}"), action


def test_the_shared_state_is_declared_once_and_all_given_a_value() -> None:
    """The state the concerns share is declared (with types) in mixin.AppMixin and set up in
    PanelbotApp.__init__: neither has a name the other lacks."""
    import textwrap

    from panelbot.tui.app import PanelbotApp
    from panelbot.tui.mixin import AppMixin

    init = ast.parse(textwrap.dedent(inspect.getsource(PanelbotApp.__init__)))
    assigned = {
        t.attr
        for node in ast.walk(init)
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
    }
    assert assigned == set(AppMixin.__annotations__)
