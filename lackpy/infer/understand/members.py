"""What a definition holds: the methods of a named class, the classes ranked by their methods, the classes that inherit from
a named one, and the parameters a function takes.

"How many methods does the Inventory class have?", "list the methods of
class User", "which class has the most methods", "what arguments does
split_evenly take", "on average, how many parameters do the functions in
src/app.py take", "which exceptions subclass ApiError" (the classes that
name it among their bases: its direct subclasses). A class is named as code names it ("the Inventory class",
"class Inventory", "methods of Inventory"); a function by its name. The
parameters are those of ``compose.ARGUMENTS``: every name of the signature,
``*args`` and ``**kwargs`` too, without a method's ``self`` or ``cls``.
"""

from __future__ import annotations

import re

from lackpy.infer.understand.phrases import LEXICON, W, Hit, Sentence, State, rx

_NAME = re.compile(r"[A-Za-z_]\w*")
_PARAMS = r"(?:arguments|parameters|params|args|argument|parameter|param|arg)"
_OF_CLASS = rx(r"(?:(?:of|in|on|for) )?(?:the )?(?:class (?P<c1>" + W + r")|(?P<c2>" + W + r") class)(?= |$)")
_HAS_METHODS = rx(r"(?<=methods )(?:does|do) (?:the )?(?P<c>" + W + r")(?= (?:class )?(?:have|define|contain|hold|has))")
_METHODS_OF = rx(r"(?:(?<=methods )|(?<=method ))(?:of|in|on) (?:the )?(?P<c>" + W + r")")
_CLASS_RANK = rx(r"(?:which|what) class (?:has|defines|holds|contains) the (?P<dir>most|fewest|least) methods")
_PARAMS_OF = rx(
    r"(?:(?:what|which) " + _PARAMS + r" (?:does|do) (?:the )?(?:function |method )?(?P<f1>" + W + r") (?:take|accept|have|need|expect)"
    r"|(?:the )?" + _PARAMS + r" (?:of|for|to) (?:the )?(?:function |method )?(?P<f2>" + W + r"))"
)
_HOW_MANY_PARAMS = rx(r"how many " + _PARAMS + r" (?:does|do) (?:the )?(?:function |method )?(?P<f>" + W + r") (?:take|accept|have|need|expect)")
_BASES = rx(
    r"(?:what|which) (?:class |classes )?(?:does|do) (?:the )?(?:class )?(?P<c1>" + W + r")(?: class)? (?:inherit|derive|extend|subclass)(?:s)?(?: from)?"
    r"|(?:the )?(?:base|parent|super) ?class(?:es)? of (?:the )?(?:class )?(?P<c2>" + W + r")"
)
_SUBCLASSES = rx(
    r"(?:(?P<noun>classes|exceptions|errors|subclasses) (?:that |which )?(?:(?:inherit|derive|descend)s? from|(?:subclass|extend)(?:es|s)?) (?P<b1>" + W + r")"
    r"|(?:the )?(?:sub-?classes|children|child classes) of (?P<b2>" + W + r"))"
)
_PARAMS_NOUN = rx(r"(?P<p>" + _PARAMS + r")")
_TAKE = rx(r"takes?|accepts?|needs?|expects?|take in")


def parse_members(s: Sentence, st: State) -> None:
    """A class whose methods are asked about, classes ranked by their methods, a function's parameters, or parameters in general."""
    text = " ".join(t.form for t in s.tokens)
    methods = re.search(r"\bmethods?\b", text) is not None

    def of_class(hit: Hit) -> bool:
        token = hit.token("c1" if hit.has("c1") else "c2")
        if not methods or token.quoted or not _NAME.fullmatch(token.raw) or token.form in LEXICON or token.form in ("one", "whose"):
            return False
        st.owner = token.raw
        st.note(f"of class {token.raw}")
        return hit.claim("scope")

    def methods_of(hit: Hit) -> bool:
        token = hit.token("c")
        if not _NAME.fullmatch(token.raw) or not token.raw[:1].isupper():
            return False  # "methods of the code": a class is named as code names it
        st.owner = token.raw
        st.note(f"of class {token.raw}")
        return hit.claim("scope")

    def class_rank(hit: Hit) -> bool:
        st.class_rank = hit.form("dir") == "most"
        st.kinds.append("class")
        st.units.append(("definitions", hit.index(0), False))
        st.note(f"the class with the {hit.form('dir')} methods")
        return hit.claim("order")

    def params_of(hit: Hit, count: bool = False) -> bool:
        token = hit.token(next(g for g in ("f", "f1", "f2") if hit.has(g)))
        owner, _, name = token.raw.rpartition(".")  # "Cart.add": the method add of the class Cart
        if token.quoted or not _NAME.fullmatch(name) or owner and not _NAME.fullmatch(owner) or token.form in LEXICON:
            return False  # "the parameters of the functions": every function's, not one named functions
        st.params_of = name
        st.owner = owner or None
        st.asks.add("count" if count else "list")
        st.note(f"the parameters of {token.raw}")
        return hit.claim("unit")

    def params(hit: Hit) -> bool:
        st.units.append(("params", hit.index(0), True))
        st.note("parameters")
        return hit.claim("unit")

    def bases(hit: Hit) -> bool:
        """"what does HttpProvider inherit from", "the base classes of User": the bases its class line names."""
        token = hit.token("c1" if hit.has("c1") else "c2")
        if token.quoted or not _NAME.fullmatch(token.raw) or token.form in LEXICON:
            return False
        st.bases_of = token.raw
        st.asks.add("list")
        st.note(f"the bases of {token.raw}")
        return hit.claim("unit")

    def subclasses(hit: Hit) -> bool:
        token = hit.token("b1" if hit.has("b1") else "b2")
        if token.quoted or not re.fullmatch(r"[A-Za-z_][\w.]*", token.raw):
            return False
        st.base = token.raw.rsplit(".", 1)[-1]
        st.kinds.append("class")
        st.units.append(("definitions", hit.index(0), True))
        st.note(f"the classes that inherit from {st.base}")
        return hit.claim("unit")

    s.scan(_BASES, bases)
    s.scan(_SUBCLASSES, subclasses)
    s.scan(_CLASS_RANK, class_rank)
    s.scan(_HOW_MANY_PARAMS, lambda hit: params_of(hit, count=True))
    s.scan(_PARAMS_OF, params_of)
    if st.params_of is None and re.search(r"\b(?:average|mean|median)\b", text):  # "on average, how many parameters do the functions take"
        s.scan(_PARAMS_NOUN, params)
        if any(u == "params" for u, _i, _p in st.units):
            s.scan(_TAKE, lambda hit: hit.claim("unit"))
    s.scan(_HAS_METHODS, methods_of)  # "how many methods does Money have"
    s.scan(_METHODS_OF, methods_of)
    s.scan(_OF_CLASS, of_class)


__all__ = ["parse_members"]
