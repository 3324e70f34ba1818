"""A failed race names the exceptions Rally logged while it ran, so that a CI log shows the cause, not only an exit code."""

from ingestlab.rally import home as rally_home

BEFORE = "2026-11-28 10:56:31 esrally.racecontrol INFO an earlier race\nesrally.exceptions.RallyError: an earlier race's crash\n"
DURING = """2026-11-28 10:56:44,71 -not-actor-/PID:405 esrally.actor ERROR Could not initialize actor system
Traceback (most recent call last):
  File "thespian/actors.py", line 637, in __init__
thespian.actors.InvalidActorAddress: ActorAddr-(T|:45043) is not a valid or useable ActorSystem Admin
thespian.actors.NoCompatibleSystemForActor: No compatible ActorSystem could be found
During handling of the above exception, another exception occurred:
esrally.exceptions.RallyError: This race ended with a fatal crash.
esrally.exceptions.RallyError: This race ended with a fatal crash.
"""


def test_the_exceptions_logged_after_the_race_began_in_their_order_each_once(tmp_path):
    log = rally_home.rally_log(tmp_path)
    log.parent.mkdir(parents=True)
    log.write_text(BEFORE)
    since = rally_home.log_size(tmp_path)
    with open(log, "a") as f:
        f.write(DURING)
    assert rally_home.errors_logged(since, tmp_path) == [
        "thespian.actors.InvalidActorAddress: ActorAddr-(T|:45043) is not a valid or useable ActorSystem Admin",
        "thespian.actors.NoCompatibleSystemForActor: No compatible ActorSystem could be found",
        "esrally.exceptions.RallyError: This race ended with a fatal crash.",
    ]


def test_no_log_means_nothing_logged(tmp_path):
    assert rally_home.log_size(tmp_path) == 0 and rally_home.errors_logged(0, tmp_path) == []
