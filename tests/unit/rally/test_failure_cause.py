"""A failed race is reported by its cause, as Rally gave it, never by Rally's help text; with several races on one
machine (one shared log), only the failed race's own processes' records name it."""

from ingestlab.errors import RaceFailed
from ingestlab.rally import failure
from ingestlab.redline import probe

OUTPUT = """\x1b[1m[INFO]\x1b[0m Racing on track [posts], challenge [redline] and car ['external'] with version [7.17.29].

\x1b[31m[ERROR] Cannot race. Worker [0] has exited prematurely.\x1b[0m

Getting further help:
*********************
* Check the log files in /var/lib/ingestlab/rally/.rally/logs for errors.
* Read the documentation at https://esrally.readthedocs.io/en/2.13.0/.
* Ask a question on the forum at https://discuss.elastic.co/tags/c/elastic-stack/elasticsearch/rally.
* Raise an issue at https://github.com/elastic/rally/issues and include the log files in /var/lib/ingestlab/rally/.rally/logs.

-------------------------------
[INFO] FAILURE (took 21 seconds)
-------------------------------
"""

# two races on one machine log into one file: race A (PIDs 100, 101: esrally, its driver) and race B (200, 201)
SHARED_LOG = """2026-12-01 10:00:01,5 -not-actor-/PID:200 esrally.racecontrol INFO Race id is [b]
2026-12-01 10:00:02,7 ActorAddr-(T|:41111)/PID:201 esrally.driver.driver ERROR Could not execute benchmark
Traceback (most recent call last):
  File "esrally/driver/driver.py", line 1, in run
elasticsearch.ApiError: ApiError(500, 'illegal_state_exception')
2026-12-01 10:00:03,1 ActorAddr-(T|:42222)/PID:101 esrally.driver.driver ERROR Worker [0] has exited prematurely. Aborting benchmark.
2026-12-01 10:00:04,9 -not-actor-/PID:100 esrally.rally ERROR Cannot run subcommand [race].
Traceback (most recent call last):
  File "esrally/rally.py", line 1, in dispatch_sub_command
esrally.exceptions.RallyError: Worker [0] has exited prematurely.
2026-12-01 10:00:05,2 -not-actor-/PID:200 esrally.rally INFO Actor system shut down
"""


def test_the_cause_rally_printed_is_the_line_between_cannot_race_and_its_help():
    assert failure.from_output(OUTPUT) == "Worker [0] has exited prematurely."
    assert failure.from_output("[INFO] Racing on track [posts]\n") is None


def test_a_cause_over_several_lines_is_one_line():
    printed = "[ERROR] Cannot race. Error in load generator [0]\n\tCannot run task [bulk]: HTTP 400\n\nGetting further help:\n* Check"
    assert failure.from_output(printed) == "Error in load generator [0] Cannot run task [bulk]: HTTP 400"


def test_from_a_shared_log_only_the_races_own_processes_name_its_cause():
    assert failure.from_log(SHARED_LOG, {100, 101}) == "RallyError: Worker [0] has exited prematurely."
    assert failure.from_log(SHARED_LOG, {200, 201}) == "ApiError: ApiError(500, 'illegal_state_exception')"
    assert failure.from_log(SHARED_LOG, {101}) == "Worker [0] has exited prematurely. Aborting benchmark."
    assert failure.from_log(SHARED_LOG, {999}) is None


def test_the_cause_prefers_what_rally_printed_then_its_own_log_then_what_was_logged_then_the_exit_code():
    assert failure.cause(OUTPUT, SHARED_LOG, {200}, 64) == "Worker [0] has exited prematurely."
    assert failure.cause("", SHARED_LOG, {100}, 64) == "RallyError: Worker [0] has exited prematurely."
    logged = ("esrally.exceptions.RallyError: something",)
    assert failure.cause("", "", set(), 64, logged) == (
        "RallyError: something (logged while the race ran; another race on this machine may have logged it)"
    )
    assert failure.cause("", "", set(), 64) == "esrally exited with 64 and gave no cause"


def test_a_failed_redline_probe_records_the_cause_not_the_help_text():
    step = None  # a failed race is judged before anything of its step is read

    def failing():
        raise RaceFailed(
            "the race failed: Worker [0] has exited prematurely. (exit 64; Rally's log: /x)\n" + OUTPUT,
            cause="Worker [0] has exited prematurely.",
        )

    got = probe.raced(step, 800.0, failing)
    assert got.why == "the race failed: Worker [0] has exited prematurely."
    assert "Check the log files" not in got.why


def test_a_race_failed_without_a_cause_names_its_first_line():
    assert RaceFailed("the race failed: x (exit 1)\nmore").cause == "the race failed: x (exit 1)"
