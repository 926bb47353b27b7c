"""Security grades: Grade is a (w, d) NamedTuple and compute_grade takes the element-wise maximum."""

from __future__ import annotations

import json

import pytest

from lackpy import Grade, compute_grade

READ_FILE = {"grade_w": 1, "effects_ceiling": 0}
WRITE_FILE = {"grade_w": 3, "effects_ceiling": 3}
FETCH = {"grade_w": 3, "effects_ceiling": 0}
DELETE_LOCAL = {"grade_w": 0, "effects_ceiling": 2}


def test_grade_is_a_named_tuple():
    """Grade has the fields w and d, compares and unpacks like a tuple."""
    grade = Grade(2, 1)
    assert isinstance(grade, tuple)
    assert Grade._fields == ("w", "d")
    assert (grade.w, grade.d) == (2, 1)
    w, d = grade
    assert (w, d) == (2, 1)
    assert grade == (2, 1)
    assert Grade(w=2, d=1) == grade


def test_grade_defaults_to_zero():
    """Grade() is Grade(0, 0)."""
    assert Grade() == Grade(0, 0)


def test_grade_to_dict_and_str():
    """to_dict gives {'w', 'd'} and str gives 'w=.. d=..'."""
    assert Grade(3, 1).to_dict() == {"w": 3, "d": 1}
    assert json.loads(json.dumps(Grade(3, 1).to_dict())) == {"w": 3, "d": 1}
    assert str(Grade(3, 1)) == "w=3 d=1"


def test_empty_kit_grade():
    """A kit without tools is Grade(0, 0)."""
    assert compute_grade({}) == Grade(0, 0)


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        pytest.param({"read_file": READ_FILE}, Grade(1, 0), id="one-tool"),
        pytest.param({"read_file": READ_FILE, "write_file": WRITE_FILE}, Grade(3, 3), id="read-and-write"),
        pytest.param({"fetch": FETCH, "delete_local": DELETE_LOCAL}, Grade(3, 2), id="element-wise-not-lexicographic"),
        pytest.param({"read_file": READ_FILE, "delete_local": DELETE_LOCAL}, Grade(1, 2), id="max-per-axis"),
        pytest.param({"odd": {}}, Grade(0, 0), id="missing-keys-count-as-zero"),
        pytest.param({"text": {"grade_w": "2", "effects_ceiling": "1"}}, Grade(2, 1), id="numeric-strings"),
    ],
)
def test_compute_grade_is_element_wise_max(tools, expected):
    """compute_grade takes the maximum of each axis separately."""
    grade = compute_grade(tools)
    assert grade == expected
    assert isinstance(grade, Grade)


def test_compute_grade_ignores_order():
    """The grade does not depend on the order of the tools."""
    forward = {"a": READ_FILE, "b": WRITE_FILE, "c": DELETE_LOCAL}
    backward = dict(reversed(list(forward.items())))
    assert compute_grade(forward) == compute_grade(backward) == Grade(3, 3)


@pytest.mark.parametrize("grade, risk", [
    ((0, 0), "safe"), ((1, 0), "safe"), ((1, 1), "safe"), ((0, 1), "safe"),
    ((2, 0), "sensitive"), ((2, 1), "sensitive"),
    ((1, 2), "critical"), ((3, 0), "critical"), ((2, 3), "critical"), ((3, 3), "critical"),
])
def test_the_trust_ladder(grade, risk):
    from lackpy.lang.grade import RISKS, Grade

    assert Grade(*grade).risk == risk and risk in RISKS


@pytest.mark.parametrize(
    "written, grade",
    [("1,0", Grade(1, 0)), (" 3 , 3 ", Grade(3, 3)), ([2, 1], Grade(2, 1)), ((0, 0), Grade(0, 0)), (Grade(1, 2), Grade(1, 2))],
)
def test_a_grade_is_read_one_way_wherever_it_is_written(written, grade):
    assert Grade.parse(written) == grade


@pytest.mark.parametrize("written", ["readonly", "4,0", "1,", "1,0,0", "-1,0", "1.0,0", [1], [1, 4], [True, 0], ["1", "0"], None, 3])
def test_what_is_not_a_grade_reads_as_none(written):
    assert Grade.parse(written) is None
