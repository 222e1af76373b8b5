"""Regular expressions as ECMA-262 reads them with the ``u`` flag (``new RegExp(p, "u")``).

JSON Schema says a ``pattern`` is an ECMA-262 regular expression (2020-12 Validation
section 6.3.3), and clients that validate in JavaScript compile it so: the MCP TypeScript
SDK's Ajv (``unicodeRegExp: true``, the default) throws on the first pattern the ``u`` flag
refuses, and the host lists no tool at all (issue 28: SendGrid's ``\\-``, DigitalOcean's
``\\:``, PayPal's ``\\!`` and lone ``]``, Okta's ``(?i)``). Documents are written against
Python, Java or PCRE engines, which accept more. :func:`to_ecma` translates what has an
ECMA-262 equivalent and says why it cannot for the rest:

- identity escapes of characters that are not syntax characters (``\\-`` outside a class,
  ``\\:``, ``\\!``, ``\\_``...) lose their backslash; lone ``]``, ``{`` and ``}`` gain one;
  a ``-`` next to a class escape inside a class (``[\\w-.]``) is escaped;
- Python's ``(?P<name>``, ``(?P=name)``, ``\\A``, ``\\Z``, ``\\z``, ``\\a``, ``\\U0001F600``,
  ``\\N{...}``, ``{,n}`` and ``(?#...)`` become their ECMA-262 spelling;
- inline flags (``(?i)``, ``(?s)``, ``(?m)``, ``(?x)``, scoped ``(?i:...)``) are applied to
  the pattern itself: letters become ``[aA]`` (ASCII case folding), ``.`` becomes
  ``[\\s\\S]``, ``^``/``$`` become line-boundary assertions, verbose whitespace and
  comments go;
- possessive quantifiers, atomic groups, conditionals, recursion, ``\\G``, ``\\K``, ``\\Q``,
  unknown letter escapes and case-insensitive ranges outside ASCII have no equivalent.
  Nor has what no engine reads, which ``new RegExp(p, "u")`` throws on: a quantifier
  with nothing to repeat (``a**``, ``^*``, ``(?=a)*``), ``{2,1}``, ``[z-a]``, a group name
  used twice, ``\\p{...}`` with a name ECMA-262 does not know (PCRE's ``\\p{Han}``,
  Java's ``\\p{IsLatin}``).

The render rule :func:`ecma_patterns` applies it to every ``pattern`` and every
``patternProperties`` key: a translation is a ``rewritten`` loss, an untranslatable
pattern a ``dropped`` one (the value kept in the loss; ``validate`` still enforces the
original with jsonschema-rs).

Source: ECMA-262 15th edition section 22.2.1 (Patterns; ``[UnicodeMode]`` grammar:
``IdentityEscape`` is a ``SyntaxCharacter`` or ``/``, ``ClassEscape`` adds ``-``, no lone
``]``/``{``/``}``, no class escape as a range end); Python ``re`` syntax
(docs.python.org/3/library/re.html); Ajv ``unicodeRegExp`` option.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from httpllm._types import Schema
from httpllm.dialects._base import RenderContext, leaf_triggers

__all__ = ["Untranslatable", "ecma_patterns", "to_ecma"]

_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
_CLASS_ESCAPES = frozenset("dDwWsS")
_CONTROL = frozenset("tnvfr")
_QUANTIFIER = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")
_HEX2 = re.compile(r"[0-9a-fA-F]{2}")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_HEX8 = re.compile(r"[0-9a-fA-F]{8}")
_BRACED_HEX = re.compile(r"\{[0-9a-fA-F]{1,6}\}")
_PROPERTY = re.compile(r"\{[A-Za-z0-9_=]+\}")
_NAME = re.compile(r"<([A-Za-z_$][A-Za-z0-9_$]*)>")
_PY_FLAGS = frozenset("aiLmsux")
_NO_EQUIVALENT = {
    ">": "an atomic group", "|": "a branch-reset group", "(": "a conditional group",
    "R": "recursion", "&": "a subroutine call", "0": "recursion", "+": "recursion",
}


_ASSERTIONS = frozenset({"^", "$", "\\b", "\\B"})
"""What an escape may be written as that takes no quantifier in ``u`` mode (``\\A``)."""
_LOOKAROUNDS = frozenset({"(?=", "(?!", "(?<=", "(?<!"})
"""Group openers whose group takes no quantifier in ``u`` mode."""

_CATEGORIES = frozenset({
    "C", "Other", "Cc", "Control", "cntrl", "Cf", "Format", "Cn", "Unassigned", "Co",
    "Private_Use", "Cs", "Surrogate", "L", "Letter", "LC", "Cased_Letter", "Ll",
    "Lowercase_Letter", "Lm", "Modifier_Letter", "Lo", "Other_Letter", "Lt",
    "Titlecase_Letter", "Lu", "Uppercase_Letter", "M", "Mark", "Combining_Mark", "Mc",
    "Spacing_Mark", "Me", "Enclosing_Mark", "Mn", "Nonspacing_Mark", "N", "Number", "Nd",
    "Decimal_Number", "digit", "Nl", "Letter_Number", "No", "Other_Number", "P", "Punctuation",
    "punct", "Pc", "Connector_Punctuation", "Pd", "Dash_Punctuation", "Pe",
    "Close_Punctuation", "Pf", "Final_Punctuation", "Pi", "Initial_Punctuation", "Po",
    "Other_Punctuation", "Ps", "Open_Punctuation", "S", "Symbol", "Sc", "Currency_Symbol",
    "Sk", "Modifier_Symbol", "Sm", "Math_Symbol", "So", "Other_Symbol", "Z", "Separator", "Zl",
    "Line_Separator", "Zp", "Paragraph_Separator", "Zs", "Space_Separator"
})
"""General_Category values and aliases ECMA-262 takes (``\\p{Lu}``: table 67)."""
_BINARY = frozenset({
    "ASCII", "ASCII_Hex_Digit", "AHex", "Alphabetic", "Alpha", "Any", "Assigned",
    "Bidi_Control", "Bidi_C", "Bidi_Mirrored", "Bidi_M", "Case_Ignorable", "CI", "Cased",
    "Changes_When_Casefolded", "CWCF", "Changes_When_Casemapped", "CWCM",
    "Changes_When_Lowercased", "CWL", "Changes_When_NFKC_Casefolded", "CWKCF",
    "Changes_When_Titlecased", "CWT", "Changes_When_Uppercased", "CWU", "Dash",
    "Default_Ignorable_Code_Point", "DI", "Deprecated", "Dep", "Diacritic", "Dia", "Emoji",
    "Emoji_Component", "EComp", "Emoji_Modifier", "EMod", "Emoji_Modifier_Base", "EBase",
    "Emoji_Presentation", "EPres", "Extended_Pictographic", "ExtPict", "Extender", "Ext",
    "Grapheme_Base", "Gr_Base", "Grapheme_Extend", "Gr_Ext", "Hex_Digit", "Hex",
    "IDS_Binary_Operator", "IDSB", "IDS_Trinary_Operator", "IDST", "ID_Continue", "IDC",
    "ID_Start", "IDS", "Ideographic", "Ideo", "Join_Control", "Join_C",
    "Logical_Order_Exception", "LOE", "Lowercase", "Lower", "Math", "Noncharacter_Code_Point",
    "NChar", "Pattern_Syntax", "Pat_Syn", "Pattern_White_Space", "Pat_WS", "Quotation_Mark",
    "QMark", "Radical", "Regional_Indicator", "RI", "Sentence_Terminal", "STerm",
    "Soft_Dotted", "SD", "Terminal_Punctuation", "Term", "Unified_Ideograph", "UIdeo",
    "Uppercase", "Upper", "Variation_Selector", "VS", "White_Space", "space", "XID_Continue",
    "XIDC", "XID_Start", "XIDS"
})
"""Binary property names and aliases ECMA-262 takes (``\\p{Alpha}``: table 66)."""
_KEYED = frozenset({"General_Category", "gc", "Script", "sc", "Script_Extensions", "scx"})
"""The ``key=`` ECMA-262 takes in ``\\p{key=value}``."""

_MEMO = "ecma_patterns"
"""The key of :func:`_translated`'s translations in a compile's ``RenderContext.memo``."""


class Untranslatable(ValueError):
    """A pattern with a construct ECMA-262 has no equivalent for (the message says which)."""


@dataclass(slots=True)
class _State:
    """One translation: the source, where it is, the flags in force, what was written."""

    text: str
    at: int = 0
    flags: frozenset[str] = frozenset()
    stack: list[frozenset[str]] = field(default_factory=list)
    out: list[str] = field(default_factory=list)
    groups: int = 0
    backrefs: list[int] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    named_refs: list[str] = field(default_factory=list)
    quantified: bool = False  # the last thing written was a quantifier
    repeatable: bool = False  # the last thing written takes a quantifier (u mode)
    lookarounds: list[bool] = field(default_factory=list)  # per open group: a lookaround?


def to_ecma(pattern: str) -> str:
    """``pattern`` in the ECMA-262 syntax ``new RegExp(p, "u")`` accepts, with the same
    matches where the source engine (Python, PCRE, Java) and ECMA-262 agree; the same
    string when nothing needed a change.

    >>> to_ecma(r"^[a-zA-Z0-9_\\-\\:]+$")
    '^[a-zA-Z0-9_\\\\-:]+$'
    >>> to_ecma("(?i)^ab$")
    '^[aA][bB]$'

    Raises:
        Untranslatable: the pattern holds a construct ECMA-262 has no equivalent for.
    """
    state = _State(pattern)
    _leading_flags(state)
    while state.at < len(pattern):
        _step(state)
    if state.stack:
        raise Untranslatable("an unclosed group")
    if any(n > state.groups for n in state.backrefs):
        raise Untranslatable("a backreference to a group that does not exist")
    if any(n not in state.names for n in state.named_refs):
        raise Untranslatable("a backreference to a group name that does not exist")
    return "".join(state.out)


def _leading_flags(state: _State) -> None:
    """Global inline flags at the start (``(?i)``, ``(?im)``): applied, not written."""
    found = re.match(r"\(\?([a-zA-Z]+)\)", state.text)
    if found is None:
        return
    letters = set(found.group(1))
    if not letters <= _PY_FLAGS:
        raise Untranslatable(f"the inline flags {found.group(0)}")
    state.flags = frozenset(letters)
    state.at = found.end()


def _step(state: _State) -> None:
    """Translate one token at ``state.at``."""
    text, at = state.text, state.at
    char = text[at]
    quantified = False
    repeatable = True
    if "x" in state.flags and (char.isspace() or char == "#"):
        end = text.find("\n", at) if char == "#" else at
        state.at = len(text) if end < 0 else end + 1
        return
    if char == "\\":
        state.out.append(_escape(state, in_class=False))
        repeatable = state.out[-1] not in _ASSERTIONS
    elif char == "[":
        state.out.append(_class(state))
    elif char == "(":
        _open(state)
        repeatable = False
    elif char == ")":
        if not state.stack:
            raise Untranslatable("an unbalanced ')'")
        state.flags = state.stack.pop()
        repeatable = not state.lookarounds.pop()
        state.out.append(")")
        state.at += 1
    elif char == "{":
        quantified = _brace(state)
        repeatable = not quantified
    elif char in "*+?":
        if char == "+" and state.quantified:
            raise Untranslatable("a possessive quantifier")
        if not state.repeatable and not (char == "?" and state.quantified):
            raise Untranslatable("a quantifier with nothing to repeat")
        state.out.append(char)
        state.at += 1
        quantified = char != "?" or not state.quantified
        repeatable = False
    else:
        state.out.append(_literal(state, char))
        state.at += 1
        repeatable = char not in "^$|"
    state.quantified = quantified
    state.repeatable = repeatable


def _literal(state: _State, char: str) -> str:
    """A character outside a class, as the flags in force read it."""
    if char in "]}":
        return "\\" + char
    if char == "." and "s" in state.flags:
        return r"[\s\S]"
    if char == "^" and "m" in state.flags:
        return r"(?:^|(?<=\n))"
    if char == "$" and "m" in state.flags:
        return r"(?:$|(?=\n))"
    if "i" in state.flags and char.lower() != char.upper():
        if not char.isascii():
            raise Untranslatable("a case-insensitive letter outside ASCII")
        return f"[{char.lower()}{char.upper()}]"
    return char


def _brace(state: _State) -> bool:
    """A quantifier ``{n}``, ``{n,}``, ``{n,m}`` (``{,m}`` is Python's ``{0,m}``), or a
    literal ``{``; whether it was a quantifier."""
    found = _QUANTIFIER.match(state.text, state.at)
    if found is None or not (found.group(1) or found.group(2)):
        state.out.append("\\{")
        state.at += 1
        return False
    low, comma, high = found.group(1) or "0", found.group(2) or "", found.group(3) or ""
    if state.quantified:
        raise Untranslatable("a quantifier after a quantifier")
    if not state.repeatable:
        raise Untranslatable("a quantifier with nothing to repeat")
    if high and int(low) > int(high):
        raise Untranslatable("a quantifier whose bounds are out of order")
    state.out.append(f"{{{low}{comma}{high}}}")
    state.at = found.end()
    return True


def _open(state: _State) -> None:
    """A group opener: ``(``, ``(?:``, lookarounds, named groups, scoped flags, comments."""
    text, at = state.text, state.at
    if not text.startswith("(?", at):
        state.groups += 1
        _push(state, "(", 1)
        return
    rest = text[at + 2:]
    if rest.startswith((":", "=", "!", "<=", "<!")):
        length = 4 if rest.startswith(("<=", "<!")) else 3
        _push(state, text[at:at + length], length)
        return
    if rest.startswith("#"):
        end = text.find(")", at)
        if end < 0:
            raise Untranslatable("an unclosed comment group")
        state.at = end + 1
        return
    if rest.startswith(("P<", "<")):
        found = _NAME.match(rest, 1 if rest.startswith("P") else 0)
        if found is None:
            raise Untranslatable("a group name ECMA-262 does not take")
        if found.group(1) in state.names:
            raise Untranslatable("a group name used twice")
        state.groups += 1
        state.names.add(found.group(1))
        _push(state, f"(?<{found.group(1)}>", 2 + found.end())
        return
    if rest.startswith("P="):
        end = rest.find(")")
        name = rest[2:end] if end > 0 else ""
        if not re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", name):
            raise Untranslatable("a named backreference ECMA-262 does not take")
        state.named_refs.append(name)
        state.out.append(f"\\k<{name}>")
        state.at += 2 + end + 1
        return
    _scoped_flags(state, rest)


def _scoped_flags(state: _State, rest: str) -> None:
    """``(?i:...)``, ``(?-i:...)``: a non-capturing group with the flags in force changed."""
    found = re.match(r"([a-zA-Z]*)(?:-([a-zA-Z]+))?:", rest)
    if found is None:
        raise Untranslatable(_NO_EQUIVALENT.get(rest[:1], f"the group (?{rest[:1]}"))
    on, off = set(found.group(1)), set(found.group(2) or "")
    if not (on | off) <= _PY_FLAGS:
        raise Untranslatable(f"the inline flags (?{found.group(0)}")
    state.stack.append(state.flags)
    state.lookarounds.append(False)
    state.flags = frozenset((state.flags | on) - off)
    state.out.append("(?:")
    state.at += 2 + found.end()


def _push(state: _State, opener: str, length: int) -> None:
    state.stack.append(state.flags)
    state.lookarounds.append(opener in _LOOKAROUNDS)
    state.out.append(opener)
    state.at += length


def _escape(state: _State, *, in_class: bool) -> str:
    """The escape at ``state.at`` (a backslash) in ECMA-262 ``u`` syntax."""
    text, at = state.text, state.at
    if at + 1 >= len(text):
        raise Untranslatable("a trailing backslash")
    char = text[at + 1]
    state.at = at + 2
    if char in _SYNTAX or (in_class and char == "-"):
        return "\\" + char
    if char in _CLASS_ESCAPES or char in _CONTROL:
        return "\\" + char
    if char == "b" or (char == "B" and not in_class):
        return "\\" + char
    if char.isdigit():
        return _number_escape(state, char, in_class)
    if char in "xuUNcpPk":
        return _coded_escape(state, char, in_class)
    if char in "AZz" and not in_class:
        return "^" if char == "A" else "$"
    if char == "a":
        return r"\x07"
    if char.isascii() and char.isalnum():
        raise Untranslatable(f"the escape \\{char}")
    return _class_char(char) if in_class else _literal(state, char)


def _number_escape(state: _State, char: str, in_class: bool) -> str:
    """``\\0`` (NUL), a backreference ``\\1``..., or an octal escape (Python ``\\012``)."""
    text, at = state.text, state.at
    digits = re.match(r"\d*", text[at:]).group(0)  # type: ignore[union-attr]
    octal = re.match(r"[0-7]{0,2}", text[at:]).group(0)  # type: ignore[union-attr]
    if char == "0" or in_class or (len(octal) == 2 and char in "01234567"):
        value = int(char + octal, 8) if char in "01234567" else None
        if value is None:
            raise Untranslatable(f"the escape \\{char}")
        state.at = at + len(octal)
        return f"\\x{value:02x}" if value < 256 else f"\\u{value:04x}"
    state.at = at + len(digits)
    state.backrefs.append(int(char + digits))
    return f"\\{char}{digits}"


def _coded_escape(state: _State, char: str, in_class: bool) -> str:
    """``\\xHH``, ``\\uHHHH``, ``\\u{...}``, ``\\UHHHHHHHH``, ``\\N{name}``, ``\\cX``,
    ``\\p{...}``, ``\\k<name>``."""
    text, at = state.text, state.at
    pattern = {"x": _HEX2, "u": _HEX4, "U": _HEX8, "p": _PROPERTY, "P": _PROPERTY,
               "k": _NAME, "N": re.compile(r"\{[^}]+\}"), "c": re.compile("[A-Za-z]")}[char]
    found = pattern.match(text, at)
    if found is None and char == "u":
        found = _BRACED_HEX.match(text, at)
    if found is None or (char == "k" and in_class):
        raise Untranslatable(f"the escape \\{char}{text[at:at + 8]}")
    state.at = found.end()
    body = found.group(0)
    if char == "U":
        return f"\\u{{{int(body, 16):x}}}"
    if char == "N":
        try:
            named = unicodedata.lookup(body[1:-1])
        except KeyError:
            raise Untranslatable(f"the character name \\N{body}") from None
        return f"\\u{{{ord(named):x}}}"
    if char == "k":
        state.named_refs.append(body[1:-1])
    if char in "pP" and not _property(body[1:-1]):
        raise Untranslatable(f"the property \\{char}{body} (PCRE's and Java's names, "
                             "such as IsLatin or Han, are not ECMA-262's)")
    return f"\\{char}{body}"


def _property(name: str) -> bool:
    """Whether ECMA-262 takes ``\\p{name}`` (a script value after ``sc=`` is not
    checked)."""
    key, _, value = name.rpartition("=")
    if not key:
        return value in _CATEGORIES or value in _BINARY
    return key in _KEYED and (key not in ("General_Category", "gc") or value in _CATEGORIES)


def _class_char(char: str) -> str:
    """A literal character inside a class (only ``]`` and ``\\`` need a backslash)."""
    return "\\" + char if char in "]\\" else char


def _class(state: _State) -> str:
    """A character class ``[...]``, its items as ECMA-262 ``u`` reads them."""
    text = state.text
    state.at += 1
    negated = text.startswith("^", state.at)
    state.at += negated
    items: list[tuple[str, str]] = []  # ("char", code) | ("set", code) | ("dash", "-")
    first = True
    while True:
        if state.at >= len(text):
            raise Untranslatable("an unclosed character class")
        char = text[state.at]
        if char == "]" and not first:
            state.at += 1
            break
        first = False
        if char == "\\":
            code = _escape(state, in_class=True)
            kind = "set" if code[:2] in {"\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\p",
                                        "\\P"} else "char"
            items.append((kind, code))
        elif char == "[" and text.startswith(("[:", "[=", "[."), state.at):
            raise Untranslatable("a POSIX class")
        else:
            state.at += 1
            items.append(("dash", "-") if char == "-" else ("char", _class_char(char)))
    return "[" + ("^" if negated else "") + _class_body(items, "i" in state.flags) + "]"


def _class_body(items: list[tuple[str, str]], fold: bool) -> str:
    """The items of a class, a ``-`` kept as a range only between two characters."""
    out: list[str] = []
    index = 0
    while index < len(items):
        kind, code = items[index]
        ranged = (kind == "char" and index + 2 < len(items)
                  and items[index + 1][0] == "dash" and items[index + 2][0] == "char")
        if ranged:
            high = items[index + 2][1]
            low_point, high_point = _code_point(code), _code_point(high)
            if low_point is not None and high_point is not None and low_point > high_point:
                raise Untranslatable("a class range out of order")
            out.append(f"{code}-{high}" + (_folded_range(code, high) if fold else ""))
            index += 3
            continue
        # a dash first or last is a character; elsewhere, not in a range, it needs its
        # backslash in u mode ([\\w-.] is refused)
        edge = index in (0, len(items) - 1)
        out.append(("-" if edge else "\\-") if kind == "dash" else code)
        if fold and kind == "char":
            out.append(_folded_range(code, code))
        index += 1
    return "".join(out)


def _code_point(code: str) -> int | None:
    """The character a class item stands for (``a``, ``\\-``, ``\\x41``, ``\\u0041``)."""
    if len(code) == 1:
        return ord(code)
    if len(code) == 2 and code[0] == "\\" and not code[1].isalnum():
        return ord(code[1])
    if code[:2] in ("\\x", "\\u") and re.fullmatch(r"[0-9a-fA-F]+", code[2:]):
        return int(code[2:], 16)
    return None


def _folded_range(low: str, high: str) -> str:
    """The other-case letters of the range ``low-high`` (ASCII), for a case-insensitive
    class; a range reaching past ASCII has no equivalent here."""
    start, end = _code_point(low), _code_point(high)
    if start is None or end is None:
        return ""
    if end > 0x7F and any(chr(c).lower() != chr(c).upper()
                          for c in range(max(start, 0x80), end + 1)):
        raise Untranslatable("a case-insensitive class reaching past ASCII")
    extra: list[str] = []
    for lower, upper in ((ord("a"), ord("z")), (ord("A"), ord("Z"))):
        a, b = max(start, lower), min(end, upper)
        if a <= b:
            shift = -32 if lower == ord("a") else 32
            extra.append(chr(a + shift) if a == b else f"{chr(a + shift)}-{chr(b + shift)}")
    return "".join(extra)


def _translated(value: str, ctx: RenderContext, keyword: str) -> str | None:
    """``value`` as ECMA-262 (a ``rewritten`` loss when it changed), or ``None`` with a
    ``dropped`` loss. Each distinct pattern is translated once per compile (``ctx.memo``:
    GitHub's MCP tools meet 13 patterns 1,952 times, 40 us a translation)."""
    known: dict[str, tuple[str, bool]] = ctx.memo.setdefault(_MEMO, {})
    found = known.get(value)
    if found is None:
        try:
            found = known[value] = (to_ecma(value), True)
        except Untranslatable as exc:
            found = known[value] = (str(exc), False)
    out, translated = found
    if not translated:
        ctx.lose(keyword, "dropped", value,
                 f"no ECMA-262 equivalent ({out}): a JavaScript client (new RegExp(p, 'u')) "
                 "would refuse it; validate still enforces it")
        return None
    if out != value:
        ctx.lose(keyword, "rewritten", value, f"as ECMA-262 with the u flag: {out}")
    return out


@leaf_triggers("pattern")  # (a patternProperties is a subschema keyword: never a leaf's)
def ecma_patterns(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """Every ``pattern`` and ``patternProperties`` key in ECMA-262 ``u`` syntax
    (:func:`to_ecma`); what has no equivalent is dropped, with a loss.

    >>> ecma_patterns({"type": "string", "pattern": r"^\\d+\\-x$"}, CTX)
    {'type': 'string', 'pattern': '^\\\\d+-x$'}
    """
    pattern = node.get("pattern")
    keyed = node.get("patternProperties")
    if not isinstance(pattern, str) and not isinstance(keyed, dict):
        return node
    out = node
    if isinstance(pattern, str):
        new = _translated(pattern, ctx, "pattern")
        if new is None:
            out = {k: v for k, v in node.items() if k != "pattern"}
        elif new != pattern:
            out = {**node, "pattern": new}
    if isinstance(keyed, dict):
        renamed: dict[str, Any] = {}
        for key, sub in keyed.items():
            new = _translated(key, ctx, "patternProperties")
            if new is not None:
                renamed[new] = sub
        if list(renamed) != list(keyed):
            out = {**out, "patternProperties": renamed} if renamed else {
                k: v for k, v in out.items() if k != "patternProperties"}
    return out
