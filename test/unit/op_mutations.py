"""
The kernel mutations of ops: discardable attributes added, properties of
generic ops changed, operands and results of generic ops dropped or added,
and `scf.while` loops inserted.
"""

from __future__ import annotations

from hypothesis import strategies as st
from mutation_helpers import pick
from mutation_vocabulary import (
    ATTRIBUTE_NAMES,
    GENERIC_OP,
    MEMBERSHIPS,
    PROPERTIES,
    SSA_NAME,
    TYPES,
    WHILE_LIMITS,
    WRONG_VALUES,
)

from bench.kernels.vocabulary import VEC_TENSOR


def split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside brackets, each part stripped."""
    parts: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(text):
        if char in "<([{":
            depth += 1
        elif char in ">)]}" and text[index - 1 : index + 1] != "->":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    tail = text[start:].strip()
    return [*parts, tail] if tail or parts else parts


# --------------------------------------------------------------------------- #
# Attributes and properties
# --------------------------------------------------------------------------- #


def add_attribute(text: str, draw: st.DrawFn) -> str:
    """A discardable attribute (a membership, mostly) added to an op."""
    lines = text.splitlines(keepends=True)
    candidates = [
        index
        for index, line in enumerate(lines)
        if " : " in line and " arith.constant " not in line
    ]
    if not candidates:
        return text
    index = pick(draw, candidates)
    line = lines[index]
    name = pick(draw, ATTRIBUTE_NAMES)
    value = pick(draw, MEMBERSHIPS if name == ATTRIBUTE_NAMES[0] else WRONG_VALUES)
    # The attribute dictionary comes before the last ` : (` of a generic op,
    # before the first ` : ` of a custom one.
    at = line.rfind(" : (") if '"' in line else line.find(" : ")
    at = line.find(" : ") if at < 0 else at
    lines[index] = f"{line[:at]} {{{name} = {value}}}{line[at:]}"
    return "".join(lines)


def mutate_property(text: str, draw: st.DrawFn) -> str:
    """A property of a generic op dropped, duplicated, renamed or given a wrong value."""
    matches = list(PROPERTIES.finditer(text))
    if not matches:
        return text
    match = pick(draw, matches)
    entries = split_top_level(match.group(1))
    index = pick(draw, range(len(entries))) if entries else 0
    kind = draw(st.integers(0, 4))
    if kind == 0 and entries:
        del entries[index]
    elif kind == 1 and entries:
        entries.insert(index, entries[index])
    elif kind == 2 and entries:
        key = entries[index].split(" = ", 1)[0]
        entries[index] = f"{key} = {pick(draw, WRONG_VALUES)}"
    elif kind == 3 and entries:
        value = entries[index].split(" = ", 1)[-1]
        entries[index] = f"{pick(draw, ATTRIBUTE_NAMES)} = {value}"
    else:
        entries.insert(
            index, f"{pick(draw, ATTRIBUTE_NAMES)} = {pick(draw, WRONG_VALUES)}"
        )
    return (
        text[: match.start()] + "<{" + ", ".join(entries) + "}>" + text[match.end() :]
    )


# --------------------------------------------------------------------------- #
# Operands and results of generic ops
# --------------------------------------------------------------------------- #


def change_operand_count(text: str, draw: st.DrawFn) -> str:
    """
    A generic op with an operand dropped or repeated, in its operand list
    and (mostly) its type list too, so that the text still parses.
    """
    matches = list(GENERIC_OP.finditer(text))
    if not matches:
        return text
    match = pick(draw, matches)
    operands = split_top_level(match["operands"])
    types = split_top_level(match["types"])
    if operands:
        index = pick(draw, range(len(operands)))
        if draw(st.booleans()):
            del operands[index]
            if draw(st.integers(0, 3)) and index < len(types):
                del types[index]
        else:
            operands.insert(index, operands[index])
            if draw(st.integers(0, 3)) and index < len(types):
                types.insert(index, types[index])
    else:
        operands, types = ["%x"], [VEC_TENSOR]
    line = (
        f"{match['indent']}{match['results']}{match['name']}({', '.join(operands)})"
        f"{match['middle']} : ({', '.join(types)}) -> {match['result_types']}"
    )
    return text[: match.start()] + line + text[match.end() :]


def change_result_count(text: str, draw: st.DrawFn) -> str:
    """A generic op with a result added, or its results dropped."""
    matches = list(GENERIC_OP.finditer(text))
    if not matches:
        return text
    match = pick(draw, matches)
    results, result_types = match["results"], match["result_types"]
    if results and draw(st.booleans()):
        results, result_types = "", "()"
    else:
        extra = pick(draw, TYPES)
        types = split_top_level(result_types.removeprefix("(").removesuffix(")"))
        results = ", ".join([*SSA_NAME.findall(results), "%extra"]) + " = "
        result_types = f"({', '.join([*types, extra])})"
    line = (
        f"{match['indent']}{results}{match['name']}({match['operands']})"
        f"{match['middle']} : ({match['types']}) -> {result_types}"
    )
    return text[: match.start()] + line + text[match.end() :]


# --------------------------------------------------------------------------- #
# Loops
# --------------------------------------------------------------------------- #


def insert_while(text: str, draw: st.DrawFn) -> str:
    """
    An `scf.while` counting up to a limit (a constant, maybe never reached,
    or an `index` parameter), or one whose condition is always true, before
    some line of the kernel (in a pipeline's body too).
    """
    limits: list[str] = [*WHILE_LIMITS, *(["%n0"] if "%n0:" in text else [])]
    limit = pick(draw, limits)
    if limit.startswith("%"):
        limit_line = f"%while_limit = arith.addi {limit}, %while_start : index"
    else:
        limit_line = f"%while_limit = arith.constant {limit} : index"
    if draw(st.booleans()):
        condition = "%while_more = arith.constant true"
    else:
        condition = "%while_more = arith.cmpi slt, %while_i, %while_limit : index"
    loop = (
        "%while_start = arith.constant 0 : index\n"
        "%while_step = arith.constant 1 : index\n"
        f"{limit_line}\n"
        "%while_end = scf.while (%while_i = %while_start) : (index) -> index {\n"
        f"  {condition}\n"
        "  scf.condition(%while_more) %while_i : index\n"
        "} do {\n"
        "^bb0(%while_j: index):\n"
        "  %while_next = arith.addi %while_j, %while_step : index\n"
        "  scf.yield %while_next : index\n"
        "}\n"
    )
    lines = text.splitlines(keepends=True)
    lines.insert(pick(draw, range(1, max(2, len(lines)))), loop)
    return "".join(lines)
