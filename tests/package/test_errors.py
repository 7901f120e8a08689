"""Bad input is a Python exception with a message, never a crash."""

import subprocess
import sys

import pyarrow as pa
import pytest

import robostats_cc as robostats

from conftest import binary


@pytest.mark.parametrize("body", [123, None, 1.5, ["User-agent: *"], object()])
def test_a_body_of_another_type_is_a_type_error(body):
    with pytest.raises(TypeError, match="bytes or str"):
        robostats.RobotsTxt(body)


def test_wrong_argument_types_are_type_errors():
    robots = robostats.RobotsTxt(b"User-agent: *\nDisallow: /\n")
    with pytest.raises(TypeError):
        robots.can_fetch(b"/x", "GPTBot")
    with pytest.raises(TypeError):
        robots.can_fetch("/x", None)
    with pytest.raises(TypeError, match="urls must hold str, not int64"):
        robostats.can_fetch_many([b""], ["a"], [1])
    with pytest.raises(TypeError, match="bodies must hold bytes or str, not int"):
        robostats.can_fetch_many([b"", 3], ["a", "b"], ["/", "/"])
    with pytest.raises(TypeError, match="must be a sequence"):
        robostats.can_fetch_many(b"User-agent: *", ["a"], ["/"])
    with pytest.raises(TypeError, match="must be a sequence"):
        robostats.can_fetch_many([b""], ["a"], 5)
    with pytest.raises(TypeError, match="user_agents must hold str"):
        robostats.can_fetch_many([b""], pa.array([1.5]), ["/"])


def test_columns_of_different_lengths_are_a_value_error():
    with pytest.raises(ValueError, match=r"differ in length \(2, 1, 2\)"):
        robostats.can_fetch_many([b"", b""], ["a"], ["/", "/"])
    with pytest.raises(ValueError, match=r"differ in length \(1, 1, 0\)"):
        robostats.can_fetch_many([b""], "a", [])


def test_text_that_is_not_utf8_is_a_value_error():
    with pytest.raises(ValueError):
        robostats.can_fetch_many([b""], ["a"], pa.array([b"/\xff"], pa.binary()))
    with pytest.raises(UnicodeEncodeError):
        robostats.RobotsTxt("\ud800 lone surrogate")
    assert issubclass(UnicodeEncodeError, ValueError)


def test_connect_to_a_directory_that_is_no_data_set_says_what_the_command_says(tmp_path):
    with pytest.raises(ValueError) as err:
        robostats.connect(tmp_path)
    cli = binary("report", tmp_path, "-o", tmp_path / "r.html")
    assert cli.stderr == f"robostats: {err.value}\n"
    (tmp_path / "_manifest").mkdir()
    (tmp_path / "captures").mkdir()
    with pytest.raises(ValueError, match="made by an earlier version of robostats"):
        robostats.connect(tmp_path)


def test_no_input_takes_the_interpreter_down():
    # In a child interpreter: a crash (a Rust panic that is not an exception,
    # an abort) would show as its exit status.
    script = r'''
import pyarrow as pa, robostats_cc as robostats

class Fake:
    """An object that says it is an Arrow array, and is not."""
    def __init__(self, capsules):
        self.capsules = capsules
    def __arrow_c_array__(self, requested_schema=None):
        return self.capsules

def consumed_by_pyarrow():
    caps = pa.array([b"x"]).__arrow_c_array__()
    pa.Array._import_from_c_capsule(*caps)
    robostats._robostats._can_fetch_many(Fake(caps), "a", None, pa.array(["/"]), True, "google")

def consumed_twice():
    caps = pa.array([b"x"]).__arrow_c_array__()
    robostats._robostats._can_fetch_many(Fake(caps), "a", None, pa.array(["/"]), True, "google")
    robostats._robostats._can_fetch_many(Fake(caps), "a", None, pa.array(["/"]), True, "google")

# Inputs that are valid, however odd: an answer.
odd = [
    lambda: robostats.RobotsTxt(b"\x00" * 100000).can_fetch("\x00", "\x00", policy="library"),
    lambda: robostats.RobotsTxt(b"User-agent: *\nDisallow: " + b"*" * 20000 + b"$\n").can_fetch("/" + "a" * 20000, "x"),
    lambda: robostats.RobotsTxt(b"\r" * 100000 + b"\n" * 100000).lint(),
    lambda: robostats.RobotsTxt(bytes(range(256)) * 2000).explain("/" + "%" * 1000, "*", policy="library"),
    lambda: robostats._robostats.main(["robostats", "check", "/nonexistent", "-a", "x", "/"]),
    lambda: robostats.escape_pattern(b"%" * 1000 + b"\xff"),
    lambda: robostats.path_params_query("\x00?#" * 100),
]
# Inputs that are not: an exception.
wrong = [
    lambda: robostats.can_fetch_many(pa.array([b"x"] * 3, pa.large_binary()).slice(1), "a", ["/", "/", "/"]),
    lambda: robostats._robostats._can_fetch_many(pa.array([1, 2]), "a", None, pa.array(["/", "/"]), True, "google"),
    lambda: robostats._robostats._can_fetch_many(Fake(("x", "y")), "a", None, pa.array(["/"]), True, "google"),
    lambda: robostats._robostats._can_fetch_many(Fake(tuple(reversed(pa.array([b"x"]).__arrow_c_array__()))), "a", None, pa.array(["/"]), True, "google"),
    lambda: robostats._robostats._can_fetch_many(Fake(None), "a", None, pa.array(["/"]), True, "google"),
    lambda: robostats._robostats._can_fetch_many(pa.array([b"x"]), None, None, pa.array(["/"]), True, "google"),
    lambda: robostats._robostats._can_fetch_many(pa.array([b"x"]), "a", None, pa.array([b"\xff"]), True, "google"),
    lambda: robostats._robostats._can_fetch_many(pa.array([[b"x"]]), "a", None, pa.array(["/"]), True, "google"),
    # Capsules consumed already (by pyarrow, or by robostats itself): their
    # structs point at freed memory.
    lambda: consumed_by_pyarrow(),
    lambda: consumed_twice(),
]
for f in odd:
    f()
for i, f in enumerate(wrong):
    try:
        f()
    except (ValueError, TypeError):
        continue
    raise AssertionError(f"wrong input {i} gave no exception")
print("survived")
'''
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "survived", proc.stderr
