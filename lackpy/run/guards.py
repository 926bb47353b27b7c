"""Run-time guards: the second line behind the validator.

RestrictedPython rewrites attribute access, item access, iteration, item
stores and in-place operators into calls of the functions below. They repeat
the validator's name checks and refuse to reach into interpreter objects
(functions, modules, frames, code), whatever static analysis missed.
"""

from __future__ import annotations

import builtins
import functools
import operator
import types
from typing import Any

from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence

from lackpy.errors import GuardError, LimitExceeded
from lackpy.lang.grammar import ALLOWED_BUILTINS, is_forbidden_attribute
from lackpy.run.limits import Limits

# Objects whose attributes lead to interpreter internals (globals, closures,
# code, frames) or to other tools: no attribute of them is readable.
OPAQUE_TYPES = frozenset(
    {
        types.ModuleType,
        types.FunctionType,
        types.LambdaType,
        types.BuiltinFunctionType,
        types.BuiltinMethodType,
        types.MethodType,
        types.MethodWrapperType,
        types.WrapperDescriptorType,
        types.MethodDescriptorType,
        types.ClassMethodDescriptorType,
        types.GetSetDescriptorType,
        types.MemberDescriptorType,
        types.CodeType,
        types.FrameType,
        types.TracebackType,
        types.GeneratorType,
        types.CoroutineType,
        types.AsyncGeneratorType,
        types.CellType,
        types.MappingProxyType,
        functools.partial,
        staticmethod,
        classmethod,
        property,
        super,
    }
)

# Objects a program may modify in place (d[k] = v, lst[i] = v).
WRITABLE_TYPES = frozenset({list, dict, set, bytearray})

_checked_names: set[str] = set()


def _type_name(obj: Any) -> str:
    return type(obj).__name__


def guarded_getattr(obj: Any, name: str) -> Any:
    """``obj.name`` for public, non-reflective names on plain values."""
    if name not in _checked_names:
        if type(name) is not str or is_forbidden_attribute(name):
            raise GuardError(f"attribute '{name}' is not allowed")
        _checked_names.add(name)
    if type(obj) in OPAQUE_TYPES:
        raise GuardError(f"attributes of a {_type_name(obj)} are not accessible")
    return getattr(obj, name)


def guarded_getitem(obj: Any, key: Any) -> Any:
    """``obj[key]`` for anything but interpreter objects."""
    if type(obj) in OPAQUE_TYPES and type(obj) is not types.GeneratorType:
        raise GuardError(f"a {_type_name(obj)} cannot be indexed")
    return obj[key]


def guarded_getiter(obj: Any) -> Any:
    """``iter(obj)``: loops over values, never over interpreter objects."""
    if type(obj) in OPAQUE_TYPES and type(obj) is not types.GeneratorType:
        raise GuardError(f"a {_type_name(obj)} cannot be iterated")
    return iter(obj)


def guarded_write(obj: Any) -> Any:
    """Allow ``obj[k] = v`` only on lists, dicts, sets and bytearrays."""
    if type(obj) in WRITABLE_TYPES:
        return obj
    raise GuardError(f"a {_type_name(obj)} cannot be modified; build a new value or use a dict or list")


_INPLACE = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "|=": operator.ior,
    "^=": operator.ixor,
    "&=": operator.iand,
    "@=": operator.imatmul,
}


_SEQUENCES = frozenset({str, bytes, bytearray, list, tuple})


@functools.lru_cache(maxsize=64)
def operation_guards(limits: Limits) -> dict[str, Any]:
    """Guards that bound the work one operation can do: concatenation, repetition, powers, shifts, range.

    ``a + b``, ``a * b``, ``a ** b`` and ``a << b`` are compiled into calls of these, as
    are in-place operators and ``range``; each refuses a result larger than
    ``max_items`` items or ``max_int_bits`` bits before building it.
    """
    max_items, max_bits = limits.max_items, limits.max_int_bits

    def too_many(count: int) -> LimitExceeded:
        return LimitExceeded("max_items", max_items, f"an operation would build {count} items; the limit is {max_items}")

    def too_big(bits: int) -> LimitExceeded:
        return LimitExceeded("max_int_bits", max_bits, f"an operation would build a {bits}-bit integer; the limit is {max_bits} bits")

    def add(a: Any, b: Any) -> Any:
        kind = type(a)
        if kind is not int and kind is not float and kind in _SEQUENCES and type(b) in _SEQUENCES:
            if len(a) + len(b) > max_items:
                raise too_many(len(a) + len(b))
        return a + b

    def mul(a: Any, b: Any) -> Any:
        ta, tb = type(a), type(b)
        if ta is int and tb is int:
            bits = a.bit_length() + b.bit_length()
            if bits > max_bits:
                raise too_big(bits)
        elif tb is int and ta in _SEQUENCES:
            if len(a) * b > max_items:
                raise too_many(len(a) * b)
        elif ta is int and tb in _SEQUENCES:
            if len(b) * a > max_items:
                raise too_many(len(b) * a)
        return a * b

    def power(a: Any, b: Any) -> Any:
        if type(a) is int and type(b) is int and b > 1 and a not in (-1, 0, 1):
            bits = a.bit_length() * b
            if bits > max_bits:
                raise too_big(bits)
        return a**b

    def lshift(a: Any, b: Any) -> Any:
        if type(a) is int and type(b) is int and a and b > 0 and a.bit_length() + b > max_bits:
            raise too_big(a.bit_length() + b)
        return a << b

    def inplacevar(op: str, x: Any, y: Any) -> Any:
        if op == "+=":
            kind = type(x)
            if kind is int or kind is float:  # the counter in a hot loop
                return x + y
            if kind in _SEQUENCES and type(y) in _SEQUENCES and len(x) + len(y) > max_items:
                raise too_many(len(x) + len(y))
            x += y
            return x
        if op == "*=":
            mul(x, y)  # checks only; the in-place operator below keeps aliasing right
        elif op == "**=":
            return power(x, y)
        elif op == "<<=":
            return lshift(x, y)
        return _INPLACE[op](x, y)

    def bounded_range(*args: Any) -> range:
        r = range(*args)
        try:
            size = len(r)
        except OverflowError:
            raise too_many(max_items + 1) from None
        if size > max_items:
            raise too_many(size)
        return r

    return {"_add_": add, "_mul_": mul, "_pow_": power, "_lshift_": lshift, "_inplacevar_": inplacevar, "range": bounded_range}


def guarded_apply(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Calls with ``*args``/``**kwargs``; the callee was checked by name statically."""
    return fn(*args, **kwargs)


SAFE_BUILTINS = {name: getattr(builtins, name) for name in ALLOWED_BUILTINS if name != "print"}

# The globals every run starts from; tools and print are added per run.
BASE_GLOBALS: dict[str, Any] = {
    "__builtins__": SAFE_BUILTINS,
    "__name__": "lackpy_program",
    "_getattr_": guarded_getattr,
    "_getitem_": guarded_getitem,
    "_getiter_": guarded_getiter,
    "_write_": guarded_write,
    "_apply_": guarded_apply,
    "_unpack_sequence_": guarded_unpack_sequence,
    "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
    "_locals_": locals,
}
