"""`python -m bench startup`: the table of medians and ratios, and one real round."""

from __future__ import annotations

from bench.startup import COMMANDS, Command, measure, table

HELP = Command("xdsl-opt", ("--help",))
OURS = Command("pypto-opt", ("--help",), "xdsl-opt --help", 1.2)


def test_ratios_are_to_the_same_runs_baseline_command():
    samples = {
        "current": {HELP.label: [0.2, 0.3, 0.25], OURS.label: [0.3, 0.27, 0.9]},
        "baseline": {HELP.label: [0.4, 0.4, 0.4], OURS.label: [0.8, 0.8, 0.8]},
    }
    assert table([HELP, OURS], samples).splitlines() == [
        "| command | median (s) | ratio | target | baseline median (s) | baseline ratio |",
        "| --- | --- | --- | --- | --- | --- |",
        "| `xdsl-opt --help` | 0.250 |  |  | 0.400 |  |",
        "| `pypto-opt --help` | 0.300 | 1.20 | <= 1.2 | 0.800 | 2.00 |",
    ]


def test_every_ratio_has_its_baseline_command_in_the_run():
    labels = [command.label for command in COMMANDS]
    assert all(c.baseline in labels for c in COMMANDS if c.baseline is not None)


def test_one_round_of_one_command():
    samples = measure([HELP], 1, None)
    assert list(samples) == ["current"]
    (seconds,) = samples["current"][HELP.label]
    assert seconds > 0
