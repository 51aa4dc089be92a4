"""The Italian catalogue is complete, the committed .mo matches it, and the pages speak Italian.

The .po is parsed here with a few lines of Python (no gettext tools needed): a fresh machine without msgfmt
still has to find every string translated, since Django reads the committed django.mo.
"""

import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client

LC_MESSAGES = Path(settings.BASE_DIR) / "locale" / "it" / "LC_MESSAGES"
PO = LC_MESSAGES / "django.po"
MO = LC_MESSAGES / "django.mo"


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def po_entries(path: Path = PO) -> list[dict]:
    """Each entry of the .po as {"flags": set, "msgctxt", "msgid", "msgid_plural", "msgstr": [..], "line"}.

    Obsolete entries (#~) and the header (empty msgid) are left out."""
    entries, entry, field = [], None, None
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#~"):
            if entry is not None and not line:
                entries.append(entry)
                entry, field = None, None
            continue
        if entry is None:
            entry = {
                "flags": set(),
                "msgctxt": None,
                "msgid": "",
                "msgid_plural": None,
                "msgstr": {},
                "line": number,
            }
        if line.startswith("#,"):
            entry["flags"].update(flag.strip() for flag in line[2:].split(","))
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            value = _unquote(line[1:-1])
            if isinstance(field, tuple):
                entry["msgstr"][field[1]] += value
            else:
                entry[field] += value
        else:
            keyword, _space, rest = line.partition(" ")
            value = _unquote(rest.strip()[1:-1])
            match = re.fullmatch(r"msgstr\[(\d+)\]", keyword)
            if match or keyword == "msgstr":
                field = ("msgstr", int(match.group(1)) if match else 0)
                entry["msgstr"][field[1]] = value
            else:
                assert keyword in ("msgctxt", "msgid", "msgid_plural"), f"{path}:{number}: {raw}"
                field = keyword
                entry[field] = value
    if entry is not None:
        entries.append(entry)
    return [e for e in entries if e["msgid"]]


def test_the_italian_catalogue_has_no_untranslated_or_fuzzy_entry():
    entries = po_entries()
    assert len(entries) > 400, "the catalogue holds the site's strings (run makemessages -l it)"
    header = PO.read_text(encoding="utf-8").split("\n\n", 1)[0]
    assert "Plural-Forms: nplurals=2; plural=(n != 1);" in header
    fuzzy = [f"line {e['line']}: {e['msgid']!r}" for e in entries if "fuzzy" in e["flags"]]
    untranslated = [
        f"line {e['line']}: {e['msgid']!r}"
        for e in entries
        if not e["msgstr"] or any(not s for s in e["msgstr"].values())
    ]
    plural_forms = [
        f"line {e['line']}: {e['msgid']!r}"
        for e in entries
        if e["msgid_plural"] is not None and sorted(e["msgstr"]) != [0, 1]
    ]
    assert not fuzzy, "fuzzy entries (Django ignores them):\n" + "\n".join(fuzzy)
    assert not untranslated, "untranslated entries:\n" + "\n".join(untranslated)
    assert not plural_forms, "plural entries need msgstr[0] and msgstr[1]:\n" + "\n".join(plural_forms)


def test_every_placeholder_survives_translation():
    placeholder = re.compile(r"%\([a-z_]+\)[sd]|\{[a-z_]+\}")
    wrong = []
    for e in po_entries():
        wanted = sorted(placeholder.findall(e["msgid_plural"] or e["msgid"]))
        for index, text in e["msgstr"].items():
            if sorted(placeholder.findall(text)) != wanted:
                wrong.append(f"line {e['line']}: {e['msgid']!r} -> msgstr[{index}] {text!r}")
    assert not wrong, "placeholders changed:\n" + "\n".join(wrong)


def test_the_committed_mo_matches_the_po():
    with MO.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    stale = []
    for e in po_entries():
        if e["msgid_plural"] is None:
            got = [
                compiled.pgettext(e["msgctxt"], e["msgid"]) if e["msgctxt"] else compiled.gettext(e["msgid"])
            ]
        else:
            got = [compiled.ngettext(e["msgid"], e["msgid_plural"], n) for n in (1, 2)]
        if got != [e["msgstr"][i] for i in sorted(e["msgstr"])]:
            stale.append(f"line {e['line']}: {e['msgid']!r}")
    assert not stale, "django.mo is stale: run compilemessages -l it and commit it\n" + "\n".join(stale)


@pytest.mark.django_db
def test_the_sign_up_page_speaks_italian():
    page = Client(headers={"accept-language": "it"}).get("/accounts/signup/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'lang="it"' in html
    for text in (
        "Crea il tuo account",
        "Registrati",
        "Hai già un account?",
        "Accedi",
        "Gioca responsabilmente. Il gioco è vietato ai minori di 18 anni.",
    ):
        assert text in html, text
    assert "Create your account" not in html


@pytest.mark.django_db
def test_the_account_page_speaks_italian():
    user = get_user_model().objects.create_user("marco", "marco@example.com", "a-Long-pass-123")
    client = Client(headers={"accept-language": "it"})
    client.force_login(user)
    page = client.get("/accounts/profile/")
    assert page.status_code == 200
    html = page.content.decode()
    for text in (
        "Il mio account",
        "Accesso effettuato come marco.",
        "Cambia password",
        "Saldi",
        "Chip virtuali",
        "Gioca responsabilmente",
        "Imposta i limiti di deposito",
        "Autoesclusione",
        "Esci (marco)",
    ):
        assert text in html, text
    assert "My account" not in html
